"""Session fixtures every test module can ask for: the shared renders (tests/shared_renders.py)."""

from tests.shared_renders import espeak_short_build

__all__ = ["espeak_short_build"]
