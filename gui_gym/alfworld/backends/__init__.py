"""What plays an ALFWorld game behind ``ALFWorld-v0``: the embedded engine or real TextWorld."""
