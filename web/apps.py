from django.apps import AppConfig


class WebConfig(AppConfig):
    """The site's shell: layout, navigation, home page, error pages and shared static files."""

    name = "web"
    verbose_name = "Web app"
