"""Seeing games: the replay viewer's HTML pages (``viewer``) and terminal play (``play``)."""
