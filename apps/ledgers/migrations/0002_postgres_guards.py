"""Database-level guards of the ledger's invariants (PostgreSQL only; other vendors: no-op).

- ledgers_transaction / ledgers_entry refuse UPDATE and DELETE (append-only). TRUNCATE, used by
  test teardown, is a statement-level operation and is not affected.
- a DEFERRABLE INITIALLY DEFERRED constraint trigger checks, at COMMIT, that the entries of every
  transaction touched sum to zero; a violating transaction fails to commit.
"""

from django.db import migrations

FORWARD = """
CREATE OR REPLACE FUNCTION ledgers_refuse_change() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'ledger rows are append-only (% on %)', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER ledgers_transaction_append_only
    BEFORE UPDATE OR DELETE ON ledgers_transaction
    FOR EACH ROW EXECUTE FUNCTION ledgers_refuse_change();

CREATE TRIGGER ledgers_entry_append_only
    BEFORE UPDATE OR DELETE ON ledgers_entry
    FOR EACH ROW EXECUTE FUNCTION ledgers_refuse_change();

CREATE OR REPLACE FUNCTION ledgers_check_balanced() RETURNS trigger AS $$
DECLARE
    total bigint;
BEGIN
    SELECT COALESCE(SUM(amount), 0) INTO total FROM ledgers_entry
        WHERE transaction_id = NEW.transaction_id;
    IF total <> 0 THEN
        RAISE EXCEPTION 'ledger transaction % sums to %, not 0', NEW.transaction_id, total
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE CONSTRAINT TRIGGER ledgers_entry_balanced
    AFTER INSERT ON ledgers_entry
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION ledgers_check_balanced();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS ledgers_entry_balanced ON ledgers_entry;
DROP TRIGGER IF EXISTS ledgers_entry_append_only ON ledgers_entry;
DROP TRIGGER IF EXISTS ledgers_transaction_append_only ON ledgers_transaction;
DROP FUNCTION IF EXISTS ledgers_check_balanced();
DROP FUNCTION IF EXISTS ledgers_refuse_change();
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD, params=None)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD, params=None)


class Migration(migrations.Migration):
    dependencies = [("ledgers", "0001_initial")]

    operations = [migrations.RunPython(forward, backward)]
