-- catalog database (Postgres 15). ~1.3M products, ~60k active per locale.

CREATE TABLE categories (
    id          bigserial PRIMARY KEY,
    parent_id   bigint REFERENCES categories (id),
    name        text NOT NULL,
    slug        text NOT NULL UNIQUE
);

CREATE TABLE products (
    id           bigserial PRIMARY KEY,
    category_id  bigint NOT NULL REFERENCES categories (id),
    name         text NOT NULL,
    slug         text NOT NULL UNIQUE,
    description  text NOT NULL DEFAULT '',
    image_url    text,
    active       boolean NOT NULL DEFAULT true,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX products_category_idx ON products (category_id) WHERE active;
CREATE INDEX products_created_idx ON products (created_at DESC) WHERE active;

-- extensions available on the instance: pg_trgm, btree_gin (see infra/postgres.md)
