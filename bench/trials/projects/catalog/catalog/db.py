import os

from psycopg_pool import ConnectionPool

POOL = ConnectionPool(os.environ["CATALOG_DATABASE_URL"], min_size=4, max_size=20)


def query(sql, params=()):
    with POOL.connection() as conn:
        return conn.execute(sql, params).fetchall()
