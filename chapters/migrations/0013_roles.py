"""The three roles, as groups: Editor, Reviewer and Admin (chapters.permissions).

- Editor: add, change and view nodes; an edit of a published page becomes a pending change.
- Reviewer: the Editor's permissions and ``publish_node``: publish, unpublish, approve.
- Admin: every permission of the chapters app (delete and restore included).

Django creates permissions after all migrations have run (its ``post_migrate`` signal), so
this one creates the chapters app's first, as that signal would; a group that already exists
gets the permissions added. Going back leaves the groups, which people may have joined.
"""

from django.contrib.auth.management import create_permissions
from django.db import migrations

EDITOR = ["add_node", "change_node", "view_node"]
ROLES = {
    "Editor": EDITOR,
    "Reviewer": [*EDITOR, "publish_node"],
    "Admin": None,  # every permission of the app
}


def create_roles(apps, schema_editor):
    """Create the chapters app's permissions, then the three groups with theirs."""
    app_config = apps.get_app_config("chapters")
    # create_permissions() skips an app whose models module is unset, as it is on the
    # migration state's app configs; it only reads the models through ``apps``. The module
    # is put back as it was (the project's own app config, when called with its registry).
    models_module = getattr(app_config, "models_module", None)
    app_config.models_module = models_module or True
    try:
        create_permissions(app_config, apps=apps, verbosity=0)
    finally:
        app_config.models_module = models_module
    group_model = apps.get_model("auth", "Group")
    permission_model = apps.get_model("auth", "Permission")
    chapters = permission_model.objects.filter(content_type__app_label="chapters")
    for name, codenames in ROLES.items():
        group, _ = group_model.objects.get_or_create(name=name)
        permissions = chapters if codenames is None else chapters.filter(codename__in=codenames)
        group.permissions.add(*permissions)


class Migration(migrations.Migration):
    dependencies = [
        ("chapters", "0012_editing"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_roles, migrations.RunPython.noop)]
