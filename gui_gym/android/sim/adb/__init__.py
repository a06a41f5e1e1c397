"""The simulated phone as an ADB device: its shell and the adb server protocol (``gui-gym serve-adb``)."""
