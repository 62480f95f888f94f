"""``{{ template|rules_lines }}``: a rule template's rules in words (apps.clubs.rules_text)."""

from django import template

from apps.clubs import rules_text

register = template.Library()


@register.filter
def rules_lines(rule_template) -> list[str]:
    return rules_text.describe_template(rule_template)


@register.filter
def preset_label(preset: str) -> str:
    return rules_text.preset_label(preset)
