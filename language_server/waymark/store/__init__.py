"""The store: files on disk, the workspace path policy, sessions, history, shell tracking."""
