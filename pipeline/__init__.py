"""Orchestration stages behind render.py: voice, scene renders, soundtrack, subtitles, muxing."""
