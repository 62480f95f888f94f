"""PostgreSQL through Django's psycopg pool, where some threads keep their connection (base.py)."""
