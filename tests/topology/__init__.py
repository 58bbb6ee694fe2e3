"""A multi-host topology on one machine (issue 19): see hosts.py and docs/scaling.md."""
