"""Product search: substring match on name and description, newest first, 48 per page."""

from catalog import pricing
from catalog.db import query

PAGE_SIZE = 48

SEARCH_SQL = """
SELECT p.id, p.name, p.slug, p.image_url
FROM products p
WHERE p.active
  AND lower(p.name || ' ' || p.description) LIKE %(pattern)s
ORDER BY p.created_at DESC
LIMIT %(limit)s OFFSET %(offset)s
"""


def search(q, page=1):
    pattern = "%" + q.lower() + "%"
    rows = query(SEARCH_SQL, {"pattern": pattern, "limit": PAGE_SIZE, "offset": (page - 1) * PAGE_SIZE})
    results = []
    for pid, name, slug, image_url in rows:
        # the price shown on the result card (sale price if a promotion is on)
        price = pricing.price_for(pid)
        results.append({"id": pid, "name": name, "slug": slug, "image": image_url, "price": price})
    return results
