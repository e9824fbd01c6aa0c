"""The chapters app's template libraries."""
