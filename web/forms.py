"""Every form on the site renders the one accessible way: a label on each field, its hint and
its error tied to it with aria-describedby, and an error summary at the top that links to each
field in error (after the GOV.UK Design System)."""

from django.forms.renderers import TemplatesSetting


class SiteFormRenderer(TemplatesSetting):
    form_template_name = "web/forms/form.html"
    field_template_name = "web/forms/field.html"
