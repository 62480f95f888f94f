"""The project's ASGI application plus static files, for browser tests served by a bare Daphne."""

from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

from config.asgi import application as project_application

application = ASGIStaticFilesHandler(project_application)
