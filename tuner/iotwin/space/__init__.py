"""Parameter spaces (spaces/*.yaml) bound to a platform."""
