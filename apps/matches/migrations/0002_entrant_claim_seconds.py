"""Entry → Entrant (a ledger line is an ``Entry`` too); a match snapshots its template's claim time
like a table does (``clubs.RuleSnapshot``): existing matches take their template's; match tables
are marked ``arranged``."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def claim_seconds_from_templates(apps, schema_editor):
    Match = apps.get_model("matches", "Match")
    for match in Match.objects.filter(template__isnull=False).select_related("template"):
        match.claim_seconds = match.template.claim_seconds
        match.save(update_fields=["claim_seconds"])


def mark_match_tables_arranged(apps, schema_editor):
    """Match tables opened before tables had an ``arranged`` column are arranged tables."""
    Table = apps.get_model("tables", "Table")
    MatchTable = apps.get_model("matches", "MatchTable")
    Table.objects.filter(pk__in=MatchTable.objects.values("table_id")).update(arranged=True)


class Migration(migrations.Migration):
    dependencies = [
        ("clubs", "0003_ruletemplate_claim_seconds"),
        ("matches", "0001_initial"),
        ("tables", "0011_table_arranged_rule_snapshot"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RenameModel("Entry", "Entrant"),
        migrations.AlterModelOptions(
            name="entrant",
            options={"ordering": ["match", "registered_order"], "verbose_name": "entrant",
                     "verbose_name_plural": "entrants"},
        ),
        migrations.AlterField(
            model_name="entrant", name="match",
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="entrants",
                                    to="matches.match"),
        ),
        migrations.AlterField(
            model_name="entrant", name="user",
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="match_entrants",
                                    to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddField(
            model_name="match", name="claim_seconds",
            field=models.PositiveIntegerField(default=15, verbose_name="claim time limit (seconds)"),
        ),
        migrations.AlterField(
            model_name="match", name="players",
            field=models.PositiveSmallIntegerField(default=3, verbose_name="players"),
        ),
        migrations.AddConstraint(
            model_name="match",
            constraint=models.CheckConstraint(condition=models.Q(("claim_seconds__gte", 3), ("claim_seconds__lte", 120)),
                                              name="matches_claim_seconds_3_120"),
        ),
        migrations.RunPython(claim_seconds_from_templates, migrations.RunPython.noop),
        migrations.RunPython(mark_match_tables_arranged, migrations.RunPython.noop),
    ]
