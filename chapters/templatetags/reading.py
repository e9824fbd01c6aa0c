"""``{% load reading %}``: ``{{ words|reading_time }}``, the estimate of
``chapters.reading_time`` ("7 min read"; empty for no words)."""

from django import template

from chapters.reading_time import reading_time

__all__ = ["register"]

register = template.Library()

register.filter("reading_time", reading_time)
