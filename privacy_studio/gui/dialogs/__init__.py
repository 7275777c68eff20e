"""Modal dialogs of the studio window."""
