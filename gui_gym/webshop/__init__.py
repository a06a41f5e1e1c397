"""WebShop: upstream's shop — its pages, search, goals and score — embedded (``WebShop-v0``)."""
