"""Adapters that drive a real WebShop behind ``WebShop-v0``."""
