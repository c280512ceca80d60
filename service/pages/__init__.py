"""The web pages, shipped as package data."""
