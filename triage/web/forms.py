from __future__ import annotations

from typing import Any

from django import forms
from django.db.models import QuerySet

from triage.accounts.models import Team
from triage.engine import CAUSES
from triage.incidents.models import Incident, Workflow
from triage.incidents.selectors import IncidentFilters


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    widget = MultipleFileInput

    def clean(self, data: Any, initial: Any = None) -> list[Any]:
        files = data if isinstance(data, (list, tuple)) else [data]
        files = [f for f in files if f]
        if not files:
            raise forms.ValidationError("Choose at least one file: a log, a folder's files, or an archive.")
        return [super(MultipleFileField, self).clean(f, initial) for f in files]


class UploadForm(forms.Form):
    # The form metaclass moves declared fields to base_fields, so self.files stays the
    # request's files at run time; the stubs see the class attribute shadow BaseForm.files.
    files = MultipleFileField(label="Logs or bundles")  # type: ignore[assignment]
    # The teams the person may upload to (member or admin); the first when none is chosen.
    team = forms.ModelChoiceField(
        queryset=Team.objects.none(), empty_label=None, required=False, help_text="Who may see the incident."
    )
    title = forms.CharField(max_length=300, required=False,
                            help_text="Optional. What the list shows; otherwise the verdict names it (what failed, "
                                      "where, which job). Can be edited later.")
    job = forms.CharField(
        max_length=200, required=False,
        help_text="Optional. Uploads naming the same job join one incident.",
    )
    host = forms.CharField(max_length=200, required=False, help_text="Optional. The node these files come from.")

    def __init__(self, *args: Any, teams: QuerySet[Team], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        team_field = self.fields["team"]
        assert isinstance(team_field, forms.ModelChoiceField)
        team_field.queryset = teams
        self.first_team = teams.first()
        if self.first_team is not None:
            self.fields["team"].initial = self.first_team.pk

    def clean_team(self) -> Team | None:
        return self.cleaned_data.get("team") or self.first_team


class IncidentEditForm(forms.Form):
    title = forms.CharField(max_length=300, required=False)
    job = forms.CharField(max_length=200, required=False, help_text="Uploads naming this job join this incident.")


class WorkflowForm(forms.Form):
    """Where an incident stands; a field left out of the POST is left as it is."""

    status = forms.ChoiceField(choices=Workflow.choices, required=False)
    assignee = forms.CharField(max_length=150, required=False)
    ticket_url = forms.URLField(max_length=500, required=False, assume_scheme="https")
    resolution = forms.CharField(max_length=5000, required=False, widget=forms.Textarea)

    def changes(self, data: Any) -> dict[str, str]:
        return {name: self.cleaned_data[name] for name in self.fields if name in data}


class CommentForm(forms.Form):
    body = forms.CharField(max_length=10000, widget=forms.Textarea)


class ShareForm(forms.Form):
    # "0": as long as TRIAGE_SHARE_MAX_DAYS allows (no link lives forever).
    # An hour or a shift is enough for an on-call channel; a day or more for a ticket.
    EXPIRY_CHOICES = [("3600", "1 hour"), ("28800", "8 hours"), ("86400", "1 day"), ("604800", "7 days"),
                      ("2592000", "30 days"), ("0", "the longest allowed")]
    expires_in = forms.TypedChoiceField(choices=EXPIRY_CHOICES, coerce=int, initial="604800", label="Expires after")


class IncidentFilterForm(forms.Form):
    q = forms.CharField(required=False, label="Search")
    cause = forms.ChoiceField(required=False, choices=[("", "any cause")] + [(c, c) for c in CAUSES])
    status = forms.ChoiceField(required=False, choices=[("", "any status")] + list(Incident.Status.choices))
    host = forms.CharField(required=False)
    job = forms.CharField(required=False)
    workflow = forms.ChoiceField(required=False, choices=[("", "any workflow")] + list(Workflow.choices))
    # A user name, "-" (nobody) or "me" (the person asking; the API has no "me").
    assignee = forms.CharField(required=False, max_length=150)
    date_from = forms.DateField(required=False, label="From", widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(required=False, label="To", widget=forms.DateInput(attrs={"type": "date"}))

    def __init__(self, *args: Any, me: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.me = me

    def filters(self) -> IncidentFilters:
        if not self.is_bound or not self.is_valid():
            return IncidentFilters()
        data = self.cleaned_data
        assignee = data["assignee"].strip()
        if assignee == "me" and self.me:
            assignee = self.me
        return IncidentFilters(
            q=data["q"].strip(), cause=data["cause"], host=data["host"].strip(), job=data["job"].strip(),
            status=data["status"], date_from=data["date_from"], date_to=data["date_to"],
            workflow=data["workflow"], assignee=assignee,
        )

    def has_filters(self) -> bool:
        return self.filters() != IncidentFilters()
