"""AndroidWorld's own task code judging the served phone: the recorder of the judge fixtures."""
