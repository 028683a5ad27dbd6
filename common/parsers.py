"""A JSON parser that lets NaN/Infinity literals through to validation.

DRF's strict parser refuses them with a bare "malformed JSON" problem that names no field; parsed
leniently, the summary validation refuses them with a problem naming the offending field.
"""

from __future__ import annotations

from rest_framework.parsers import JSONParser


class LenientJSONParser(JSONParser):
    strict = False
