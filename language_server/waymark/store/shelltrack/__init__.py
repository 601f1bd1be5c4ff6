"""Shell tracking: the file changes of any command, recorded into the open turn for rewind.

``scan`` sees what a folder holds (git's view, or a bounded walk), ``preimages`` keeps
pre-images without copying the workspace, ``track`` diffs and records, ``run`` is the
``waymark run`` verb and ``hooks`` the hosts' Pre/PostToolUse handling. See docs/history.md.
"""
