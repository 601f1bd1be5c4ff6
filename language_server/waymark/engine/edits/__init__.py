"""Pure edit engines: anchored edits, string replacement, safety checks."""
