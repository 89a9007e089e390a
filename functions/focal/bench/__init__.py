"""The benchmark commands (`focal bench …`): each prints figures, none is a test."""
