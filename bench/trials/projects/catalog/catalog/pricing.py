"""Client of the pricing service (owned by the Pricing team)."""

import os

import requests

PRICING_URL = os.environ.get("PRICING_URL", "http://pricing.internal:8091")
SESSION = requests.Session()


def price_for(product_id):
    """The current price of one product, promotions applied."""
    r = SESSION.get(f"{PRICING_URL}/v2/prices/{product_id}", timeout=2)
    r.raise_for_status()
    return r.json()["price"]


def prices_for(product_ids):
    """Current prices of up to 200 products in one call (POST /v2/prices:batch)."""
    r = SESSION.post(f"{PRICING_URL}/v2/prices:batch", json={"ids": list(product_ids)}, timeout=2)
    r.raise_for_status()
    return {int(k): v for k, v in r.json()["prices"].items()}
