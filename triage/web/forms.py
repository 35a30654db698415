from __future__ import annotations

from typing import Any

from django import forms

from triage.engine import CAUSES
from triage.incidents.models import Incident
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
    files = MultipleFileField(label="Logs or bundles")
    job = forms.CharField(
        max_length=200, required=False,
        help_text="Optional. Uploads naming the same job join one incident.",
    )
    host = forms.CharField(max_length=200, required=False, help_text="Optional. The node these files come from.")


class IncidentFilterForm(forms.Form):
    q = forms.CharField(required=False, label="Search")
    cause = forms.ChoiceField(required=False, choices=[("", "any cause")] + [(c, c) for c in CAUSES])
    status = forms.ChoiceField(required=False, choices=[("", "any status")] + list(Incident.Status.choices))
    host = forms.CharField(required=False)
    job = forms.CharField(required=False)
    date_from = forms.DateField(required=False, label="From", widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(required=False, label="To", widget=forms.DateInput(attrs={"type": "date"}))

    def filters(self) -> IncidentFilters:
        if not self.is_bound or not self.is_valid():
            return IncidentFilters()
        data = self.cleaned_data
        return IncidentFilters(
            q=data["q"].strip(), cause=data["cause"], host=data["host"].strip(), job=data["job"].strip(),
            status=data["status"], date_from=data["date_from"], date_to=data["date_to"],
        )

    def has_filters(self) -> bool:
        return self.filters() != IncidentFilters()
