"""Readers that turn source files (DEIS microdata, ordinary tables) into a Panel."""
