"""The page where a signed-in user makes and revokes their API tokens (/api/tokens/).

A new token's secret is shown once, on the page answering the form (not after a redirect,
so it is kept nowhere); afterwards only its first characters are (``ApiToken.hint``).
"""

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from ..models import ApiToken

__all__ = ["TokenForm", "revoke", "tokens"]


class TokenForm(forms.Form):
    """A new token: what it is for and what it may do."""

    name = forms.CharField(max_length=100, help_text="What the token is for.")
    scope = forms.ChoiceField(choices=ApiToken.Scope.choices, initial=ApiToken.Scope.READ)


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
def tokens(request):
    """List the user's tokens (GET); make one and show its secret once (POST)."""
    form = TokenForm(request.POST if request.method == "POST" else None)
    secret = None
    if form.is_valid():
        _, secret = ApiToken.issue(request.user, **form.cleaned_data)
        form = TokenForm()
    context = {"form": form, "secret": secret, "tokens": request.user.api_tokens.all()}
    return render(request, "chapters/api/tokens.html", context)


@require_POST
@login_required
def revoke(request, pk):
    """Revoke one of the user's own tokens, then go back to the list."""
    token = get_object_or_404(ApiToken, pk=pk, user=request.user)
    token.revoke()
    messages.success(request, f"The token “{token.name}” was revoked.")
    return redirect("api:tokens")
