"""The wiki's URLs: the home page and every node at its hierarchical path."""

from django.urls import path

from . import views

app_name = "chapters"

urlpatterns = [
    path("", views.home, name="home"),
    path("<path:path>/", views.node_detail, name="node"),
]
