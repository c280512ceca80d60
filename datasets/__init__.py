"""The synthetic table-photo generator the detector is trained on."""
