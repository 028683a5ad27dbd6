"""Handling what comes from outside: bounded JSON parsing and guarded outbound requests.

Pure Python (no Django, no apps), so the engine, the pure chain layer and the Django apps can all
use the same bounds.
"""
