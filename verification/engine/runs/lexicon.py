"""General-knowledge word tables: number words, months, units, currencies, abbreviations, states.

Everything here is ordinary English or public standards (ISO 4217, US postal codes). Nothing is specific
to any evaluation set.
"""

from __future__ import annotations

from .airports_data import AIRPORTS

__all__ = [
    "AIRPORT_PLACES",
    "ALIASES",
    "BOOLEAN_STATES",
    "CLOSING_NOUNS",
    "CLOSING_WORDS",
    "COUNT_WORDS",
    "CURRENCY_NAMES",
    "CURRENCY_SYMBOLS",
    "FUNCTION_WORDS",
    "GENERAL_TERMS",
    "ISO_CURRENCIES",
    "KEY_UNITS",
    "MAGNITUDES",
    "MONTHS",
    "NUMBER_WORDS",
    "ORDINALS",
    "REVERSE_ALIASES",
    "SENTENCE_OPENERS",
    "SERVICE_WORDS",
    "STATE_PHRASES",
    "STATUS_WORDS",
    "TIME_ZONES",
    "UNIT_WORDS",
    "WEATHER_VALUES",
    "WEEKDAYS",
]

NUMBER_WORDS: dict[str, int] = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
    "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100,
    "a dozen": 12, "dozen": 12, "a couple of": 2, "twice": 2, "once": 1,
}  # fmt: skip

ORDINALS: dict[str, int] = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12,
}  # fmt: skip

# Words that count things ("two of the three days") and so are matched against list lengths and tallies.
COUNT_WORDS = frozenset(NUMBER_WORDS) | frozenset(ORDINALS)

MAGNITUDES: dict[str, float] = {
    "thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "mn": 1e6, "billion": 1e9, "bn": 1e9, "b": 1e9,
    "trillion": 1e12, "tn": 1e12,
}  # fmt: skip

MONTHS: dict[str, int] = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
    "september": 9, "october": 10, "november": 11, "december": 12, "jan": 1, "feb": 2, "mar": 3,
    "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip

WEEKDAYS: dict[str, int] = {
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6,
}  # fmt: skip

# Unit words in text -> pint unit names. Temperatures use the offset units so conversions are right.
UNIT_WORDS: dict[str, str] = {
    "°c": "degC", "° c": "degC", "degrees celsius": "degC", "celsius": "degC", "c": "degC",
    "°f": "degF", "° f": "degF", "degrees fahrenheit": "degF", "fahrenheit": "degF", "f": "degF",
    "km²": "km**2", "km2": "km**2", "sq km": "km**2", "square kilometers": "km**2",
    "square kilometres": "km**2", "square miles": "mi**2", "sq mi": "mi**2", "square mile": "mi**2",
    "m²": "m**2", "square meters": "m**2", "square feet": "ft**2", "sq ft": "ft**2",
    "km/h": "km/hour", "kph": "km/hour", "kmh": "km/hour", "mph": "mile/hour", "m/s": "m/s",
    "knots": "knot", "meters": "m", "metres": "m", "meter": "m", "metre": "m", "m": "m",
    "kilometers": "km", "kilometres": "km", "km": "km", "feet": "ft", "foot": "ft", "ft": "ft",
    "miles": "mi", "mile": "mi", "mi": "mi", "inches": "inch", "inch": "inch", "in": "inch",
    "centimeters": "cm", "cm": "cm", "millimeters": "mm", "mm": "mm",
    "milligrams": "mg", "milligram": "mg", "mg": "mg", "grams": "g", "gram": "g", "g": "g",
    "kilograms": "kg", "kilogram": "kg", "kg": "kg", "micrograms": "ug", "mcg": "ug", "µg": "ug",
    "pounds": "lb", "lbs": "lb", "lb": "lb", "ounces": "oz", "oz": "oz",
    "milliliters": "ml", "ml": "ml", "liters": "l", "litres": "l", "l": "l",
    "seconds": "s", "second": "s", "secs": "s", "sec": "s", "s": "s", "ms": "ms", "milliseconds": "ms",
    "minutes": "min", "minute": "min", "mins": "min", "min": "min",
    "hours": "hour", "hour": "hour", "hrs": "hour", "hr": "hour", "h": "hour",
    "days": "day", "day": "day", "weeks": "week", "week": "week", "months": "month", "month": "month",
    "years": "year", "year": "year", "yrs": "year",
    "%": "percent", "percent": "percent", "per cent": "percent", "pct": "percent",
    "percentage points": "percent",
}  # fmt: skip

# Key-name suffixes in tool results that carry a unit ("height_m", "max_daily_dose_mg").
KEY_UNITS: dict[str, str] = {
    "m": "m", "meters": "m", "metres": "m", "km": "km", "ft": "ft", "feet": "ft", "mi": "mi", "miles": "mi",
    "cm": "cm", "mm": "mm", "km2": "km**2", "sqkm": "km**2", "mi2": "mi**2", "sqmi": "mi**2", "m2": "m**2",
    "c": "degC", "celsius": "degC", "f": "degF", "fahrenheit": "degF",
    "mg": "mg", "g": "g", "kg": "kg", "lb": "lb", "lbs": "lb", "mcg": "ug", "ml": "ml", "l": "l",
    "kmh": "km/hour", "kph": "km/hour", "mph": "mile/hour", "mps": "m/s", "ms": "ms",
    "s": "s", "sec": "s", "seconds": "s", "min": "min", "mins": "min", "minutes": "min",
    "h": "hour", "hr": "hour", "hrs": "hour", "hours": "hour", "days": "day", "weeks": "week",
    "months": "month", "years": "year",
    "pct": "percent", "percent": "percent",
}  # fmt: skip

ISO_CURRENCIES = frozenset(
    [
        "USD",
        "EUR",
        "GBP",
        "JPY",
        "CHF",
        "CAD",
        "AUD",
        "NZD",
        "SGD",
        "HKD",
        "CNY",
        "RMB",
        "INR",
        "MXN",
        "BRL",
        "ZAR",
        "SEK",
        "NOK",
        "DKK",
        "PLN",
        "CZK",
        "HUF",
        "TRY",
        "KRW",
        "TWD",
        "THB",
        "IDR",
        "MYR",
        "PHP",
        "VND",
        "AED",
        "SAR",
        "ILS",
        "EGP",
        "NGN",
        "KES",
        "ARS",
        "CLP",
        "COP",
        "PEN",
        "RUB",
        "UAH",
        "ISK",
        "RON",
        "BGN",
    ]
)

# Currency symbols -> ISO codes. A bare "$" is any dollar; the caller checks it against the dollar codes.
CURRENCY_SYMBOLS: dict[str, str] = {
    "us$": "USD", "s$": "SGD", "mx$": "MXN", "c$": "CAD", "ca$": "CAD", "a$": "AUD", "au$": "AUD",
    "nz$": "NZD", "hk$": "HKD", "r$": "BRL", "$": "$", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR",
    "₩": "KRW", "₽": "RUB", "fr.": "CHF", "kr": "SEK",
}  # fmt: skip

CURRENCY_NAMES: dict[str, str] = {
    "us dollar": "USD", "us dollars": "USD", "dollar": "$", "dollars": "$", "euro": "EUR", "euros": "EUR",
    "pound": "GBP", "pounds sterling": "GBP", "british pound": "GBP", "yen": "JPY", "japanese yen": "JPY",
    "swiss franc": "CHF", "swiss francs": "CHF", "franc": "CHF", "francs": "CHF",
    "canadian dollar": "CAD", "canadian dollars": "CAD", "australian dollar": "AUD",
    "singapore dollar": "SGD", "singapore dollars": "SGD", "mexican peso": "MXN", "mexican pesos": "MXN",
    "peso": "MXN", "pesos": "MXN", "rupee": "INR", "rupees": "INR", "yuan": "CNY", "renminbi": "CNY",
    "won": "KRW", "rand": "ZAR", "krona": "SEK", "krone": "NOK", "real": "BRL",
}  # fmt: skip

# Common abbreviations and short names (both directions are tried).
ALIASES: dict[str, tuple[str, ...]] = {
    "usa": ("united states", "united states of america", "us"), "us": ("united states",),
    "uk": ("united kingdom", "great britain", "britain"), "uae": ("united arab emirates",),
    "nyc": ("new york city", "new york"), "la": ("los angeles",), "sf": ("san francisco",),
    "dc": ("washington",), "eu": ("european union",), "otc": ("over the counter",),
    "al": ("alabama",), "ak": ("alaska",), "az": ("arizona",), "ar": ("arkansas",), "ca": ("california",),
    "co": ("colorado",), "ct": ("connecticut",), "de": ("delaware",), "fl": ("florida",), "ga": ("georgia",),
    "hi": ("hawaii",), "id": ("idaho",), "il": ("illinois",), "in": ("indiana",), "ia": ("iowa",),
    "ks": ("kansas",), "ky": ("kentucky",), "lou": ("louisiana",), "me": ("maine",), "md": ("maryland",),
    "ma": ("massachusetts",), "mi": ("michigan",), "mn": ("minnesota",), "ms": ("mississippi",),
    "mo": ("missouri",), "mt": ("montana",), "ne": ("nebraska",), "nv": ("nevada",),
    "nh": ("new hampshire",), "nj": ("new jersey",), "nm": ("new mexico",), "ny": ("new york",),
    "nc": ("north carolina",), "nd": ("north dakota",), "oh": ("ohio",), "ok": ("oklahoma",),
    "or": ("oregon",), "pa": ("pennsylvania",), "ri": ("rhode island",), "sc": ("south carolina",),
    "sd": ("south dakota",), "tn": ("tennessee",), "tx": ("texas",), "ut": ("utah",), "vt": ("vermont",),
    "va": ("virginia",), "wa": ("washington",), "wv": ("west virginia",), "wi": ("wisconsin",),
    "wy": ("wyoming",),
}  # fmt: skip

# The reverse direction: "Arizona" for "AZ".
REVERSE_ALIASES: dict[str, tuple[str, ...]] = {}
for _short, _longs in ALIASES.items():
    for _long in _longs:
        REVERSE_ALIASES[_long] = (*REVERSE_ALIASES.get(_long, ()), _short)

# Weekday abbreviations of opening hours ("Mon–Fri: 9 a.m.–11:30 p.m.") are the evidence's weekdays, not
# names (issue 14, h21a). One direction only: "Sunday" is not supported by a "sun" of the evidence.
WEEKDAY_ABBREVIATIONS: dict[str, tuple[str, ...]] = {
    "mon": ("monday",), "tue": ("tuesday",), "tues": ("tuesday",), "wed": ("wednesday",),
    "thu": ("thursday",), "thur": ("thursday",), "thurs": ("thursday",), "fri": ("friday",),
    "sat": ("saturday",), "sun": ("sunday",),
}  # fmt: skip
ALIASES.update(WEEKDAY_ABBREVIATIONS)

# Function words and pronouns never make a capitalised phrase an entity on their own.
FUNCTION_WORDS = frozenset(
    [
        # Contractions of pronouns and the words that open a conversational reply ("Okay, I've set it",
        # "Sure, I'll send it"): capitalised at the start of a reply, never a name.
        "i've",
        "i'll",
        "i'd",
        "i'm",
        "we've",
        "we'll",
        "we're",
        "we'd",
        "you've",
        "you'll",
        "you're",
        "you'd",
        "they're",
        "they've",
        "they'll",
        "he's",
        "she's",
        "that's",
        "there's",
        "here's",
        "what's",
        "let's",
        # Relative days open sentences ("Tomorrow it will rain"): dates (runs/relative.py), not names.
        "today",
        "tonight",
        "tomorrow",
        "yesterday",
        "ok",
        "okay",
        "sure",
        "please",
        "thanks",
        "yes",
        "hi",
        "hello",
        "a",
        "an",
        "the",
        "this",
        "that",
        "these",
        "those",
        "it",
        "its",
        "it's",
        "they",
        "their",
        "them",
        "he",
        "she",
        "his",
        "her",
        "we",
        "our",
        "you",
        "your",
        "yours",
        "i",
        "my",
        "me",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "has",
        "have",
        "had",
        "do",
        "does",
        "did",
        "will",
        "would",
        "can",
        "could",
        "should",
        "may",
        "might",
        "must",
        "in",
        "on",
        "at",
        "by",
        "for",
        "from",
        "to",
        "of",
        "with",
        "and",
        "or",
        "but",
        "nor",
        "so",
        "yet",
        "as",
        "if",
        "then",
        "than",
        "when",
        "while",
        "where",
        "which",
        "who",
        "whom",
        "whose",
        "what",
        "how",
        "why",
        "there",
        "here",
        "not",
        "no",
        "yes",
        "also",
        "just",
        "only",
        "still",
        "already",
        "very",
        "about",
        "over",
        "under",
        "after",
        "before",
        "between",
        "into",
        "onto",
        "upon",
        "per",
        "via",
        "all",
        "any",
        "each",
        "every",
        "both",
        "either",
        "neither",
        "some",
        "most",
        "more",
        "less",
        "few",
        "many",
        "much",
        "one",
        "two",
        "three",
        "however",
        "that's",
        "it's",
        "here's",
        "there's",
        "what's",
        "let's",
    ]
).union(
    {"mr", "mrs", "ms", "dr", "st", "am", "pm", "utc", "gmt", "local"},
)

# State phrases -> canonical states. Longer phrases are matched first, so negations win.
STATE_PHRASES: dict[str, str] = {
    "on time": "on_time", "on-time": "on_time", "on schedule": "on_time", "delayed": "delayed",
    "cancelled": "cancelled", "canceled": "cancelled", "diverted": "diverted", "landed": "landed",
    "in stock": "in_stock", "out of stock": "out_of_stock", "sold out": "out_of_stock",
    "unavailable": "out_of_stock", "not available": "out_of_stock", "available": "in_stock",
    "confirmed": "confirmed", "tentative": "tentative", "pending": "pending", "still pending": "pending",
    "posted": "posted", "already posted": "posted", "cleared": "posted",
    "delivered": "delivered", "in transit": "in_transit", "out for delivery": "out_for_delivery",
    "processing": "processing", "not archived": "not_archived", "archived": "archived",
    "refundable": "refundable", "non-refundable": "non_refundable", "nonrefundable": "non_refundable",
    "not refundable": "non_refundable", "included": "included", "not included": "not_included",
    "over the counter": "otc", "over-the-counter": "otc", "without a prescription": "otc",
    "only with a prescription": "prescription", "prescription only": "prescription",
    "prescription-only": "prescription", "requires a prescription": "prescription",
    "by prescription": "prescription", "open": "open", "closed": "closed", "active": "not_archived",
    # Weather conditions, compared as a slot ("sunny" against "light rain" is a contradiction). Only the
    # forms that are a condition in prose: a bare "rain" or "clear" in an answer is often not one ("a chance
    # of rain", "to be clear"), so those are read only as whole values of a tool result (WEATHER_VALUES).
    "sunny": "clear", "clear skies": "clear", "clear sky": "clear", "rainy": "rain", "raining": "rain",
    "light rain": "rain", "heavy rain": "rain", "rain showers": "rain", "showers": "rain", "drizzle": "rain",
    "cloudy": "cloud", "overcast": "cloud", "partly cloudy": "partly_cloudy", "partly sunny": "partly_cloudy",
    "mostly sunny": "partly_cloudy", "mostly cloudy": "partly_cloudy", "snowy": "snow", "snowing": "snow",
    "light snow": "snow", "heavy snow": "snow", "stormy": "storm", "thunderstorms": "storm",
    "thunderstorm": "storm", "foggy": "fog", "misty": "fog", "fog": "fog", "snow showers": "snow",
    "snow shower": "snow",
}  # fmt: skip

# Status values that are common words with other meanings in prose ("the search returned", "a boarding
# pass", "I completed the form"): a state only as the whole value of a status-like key of a tool result
# (``status``, ``state``), and in an answer only right after a copula ("is returned", "has been shipped").
STATUS_WORDS: dict[str, str] = {
    "returned": "returned", "on hold": "on_hold", "held": "on_hold", "shipped": "shipped",
    "dispatched": "shipped", "boarding": "boarding", "departed": "departed", "refunded": "refunded",
    "completed": "completed", "complete": "completed", "incomplete": "pending", "not completed": "pending",
    "in progress": "in_progress", "failed": "failed", "expired": "expired",
    "approved": "approved", "rejected": "rejected", "declined": "rejected", "paid": "paid",
    "unpaid": "unpaid", "overdue": "overdue", "open": "open", "closed": "closed", "resolved": "resolved",
}  # fmt: skip

# Whole string values of a tool result that are a weather condition (see STATE_PHRASES).
WEATHER_VALUES: dict[str, str] = {
    "rain": "rain", "snow": "snow", "clear": "clear", "sun": "clear", "clouds": "cloud", "fog": "fog",
    "mist": "fog", "storm": "storm", "sleet": "snow", "hail": "storm",
}  # fmt: skip

# Boolean keys of tool results -> (state when true, state when false).
BOOLEAN_STATES: dict[str, tuple[str, str]] = {
    "archived": ("archived", "not_archived"), "refundable": ("refundable", "non_refundable"),
    "otc": ("otc", "prescription"), "over_the_counter": ("otc", "prescription"),
    "prescription_required": ("prescription", "otc"), "rx_only": ("prescription", "otc"),
    "available": ("in_stock", "out_of_stock"), "in_stock": ("in_stock", "out_of_stock"),
    "included": ("included", "not_included"), "is_open": ("open", "closed"), "open": ("open", "closed"),
    "delayed": ("delayed", "on_time"), "cancelled": ("cancelled", "confirmed"),
    "pending": ("pending", "posted"), "delivered": ("delivered", "in_transit"),
}  # fmt: skip

# The ordinary words of a service agent's labels and summaries ("New Total Price", "Refund Amount", "Total
# Cost", "Direct Flights", "Layover"): capitalised as labels, never a name. Words that open names of places
# or firms ("new", "grand", "central") are left out, so only a phrase made of these words alone is read as
# ordinary words; a field label may add words of the run ("Original Cabin") to one of them (issue 14).
SERVICE_WORDS = frozenset({
    "total", "subtotal", "cost", "costs", "price", "prices", "fare", "fares", "fee", "fees", "amount",
    "amounts", "balance", "charge", "charges", "refund", "refunds", "difference", "payment", "payments",
    "method", "methods", "current", "original", "previous", "updated", "requested", "remaining",
    "estimated", "additional", "final", "per", "passenger", "passengers", "traveler", "travelers", "person",
    "trip", "type", "cabin", "class", "seat", "seats", "baggage", "bag", "bags", "checked", "carry",
    "layover", "layovers", "stop", "stops", "direct", "nonstop", "connecting", "connection", "duration",
    "departure", "departures", "arrival", "arrivals", "date", "time", "status", "number", "reservation",
    "reservations", "booking", "bookings", "details", "summary", "option", "options", "outbound", "return",
    "inbound", "way", "round", "insurance", "membership", "tier", "credit", "gift", "card", "voucher",
    "certificate", "tax", "taxes", "discount", "upgrade", "downgrade", "cancellation", "change", "changes",
    "confirmation", "policy", "item", "items", "quantity", "shipping", "delivery", "tracking", "exchange",
    "allowance", "flight", "flights", "leg", "legs", "segment", "segments", "itinerary", "due", "customer",
    "service", "support", "team", "agent", "representative", "paid",
    "modification", "modifications", "request", "update", "updates", "overview", "information", "breakdown",
    "coverage", "note", "notes", "reminder", "important", "next", "steps", "step", "confirmed", "processed",
    "successful", "availability", "upcoming", "available", "regards", "sincerely",
    # Field labels of travel and service records (h14a): "- Operating Carrier:", "- Seat Assignment:".
    "carrier", "operator", "operating", "operated", "airline", "aircraft", "terminal", "gate", "platform",
    "coach", "assignment", "assigned", "preference", "preferences", "meal", "origin", "destination",
    "transfer", "scheduled", "actual", "expected", "contact", "address", "location", "name", "phone",
    "email", "code", "reference", "account", "holder", "member", "level", "schedule", "travel", "route",
    "id", "ids",
    # When a refund or a change takes effect, and what a flight does at its times (h23d): "- Refund
    # Timeline: 5-7 business days", "Departs at 22:00, Arrives at 01:00+1" (with the -s, -ing, -ed forms).
    "timeline", "timelines", "timeframe", "timeframes", "process", "arrive", "depart",
})  # fmt: skip

# Time-zone abbreviations, written after a clock time the agent converted or quoted ("3:42 PM PDT", "08:42
# CEST"): the zone of the time, not a name of something the results hold (issue 14, h20j).
TIME_ZONES = frozenset({
    "utc", "gmt", "z", "pt", "pst", "pdt", "mt", "mst", "mdt", "ct", "cst", "cdt", "et", "est", "edt",
    "ast", "adt", "akst", "akdt", "hst", "hast", "hadt", "nst", "ndt", "bst", "ist", "wet", "cet",
    "cest", "eet", "eest", "msk", "gst", "pkt", "sgt", "hkt", "jst", "kst", "awst", "acst", "acdt", "aest",
    "aedt", "nzst", "nzdt", "wib", "pht", "ict", "sast", "brt", "clt",
})  # fmt: skip

# Words that open a sentence before a name without being part of it: an imperative of advice ("Ask Air
# New Zealand", "Contact EE") or a subordinating conjunction ("Once EE confirms"). Capitalised at the start,
# they join the name that follows into one capitalised phrase (issue 14, h20j).
SENTENCE_OPENERS = frozenset({
    "ask", "contact", "call", "phone", "email", "e-mail", "message", "text", "tell", "notify", "visit",
    "check", "use", "open", "log", "sign", "book", "choose", "select", "pick", "click", "tap", "review",
    "confirm", "request", "reach", "bring", "keep", "see", "try", "wait", "follow", "go", "ring", "write",
    "submit", "file", "show", "present", "give", "let", "download", "install", "update", "once",
    "until", "unless", "since", "because", "although", "though", "whether", "whereas", "upon",
})  # fmt: skip

# Common nouns of technology and administration that English writes capitalised or in capitals ("Wi-Fi",
# "Ethernet", "HR"): general vocabulary of advice, not a name of the kind tool results hold (people,
# places, firms, products, the records' codes). Issue 14's rule: general knowledge the context does not
# speak to is not a claim (h20j); "API" and "URL" name the source an answer cites ("According to the
# API, ...", h22i); "ZIP" of "ZIP code 90017" is the postal code's common name (h23b). Words a record
# could hold in another sense ("PINs" for booking codes) are left out: they stay claims.
GENERAL_TERMS = frozenset({
    "wi-fi", "wifi", "ethernet", "bluetooth", "internet", "usb", "usb-c", "hdmi", "gps", "sms", "mms",
    "pdf", "faq", "faqs", "hr", "atm", "atms", "vpn", "lte", "5g", "4g", "dsl", "lan", "wlan", "nfc", "hsa",
    "fsa", "ira", "401k", "pto", "diy", "api", "apis", "url", "urls", "zip",
})  # fmt: skip

# The closing formulas of a message ("Best regards,", "Safe travels!", "Have a great day!", "Your
# Assistant"): capitalised, never names (h14a). CLOSING_WORDS make the formula; CLOSING_NOUNS may be in
# it ("day", "trip") but are ordinary words alone ("Weekend" is a list's name).
CLOSING_WORDS = frozenset({
    "best", "kind", "kindest", "warm", "warmest", "regards", "sincerely", "yours", "truly", "thanks",
    "cheers", "safe", "travels", "great", "nice", "wonderful", "good", "happy", "pleasant", "wishes",
    "enjoy", "bon", "voyage",
})  # fmt: skip
CLOSING_NOUNS = frozenset({
    "day", "trip", "journey", "stay", "weekend", "evening", "flight", "flights", "assistant", "thank", "all",
})  # fmt: skip

# The city and airport names of every airport with an IATA code (airportsdata, MIT; generated by
# ``airports_build.py`` into ``airports_data.py``), by code: general knowledge an agent adds to a code the
# results give ("Houston" for IAH, "Detroit Metropolitan Wayne County Airport" for DTW) that does not spell
# the code (issue 14: "a city for its airport"). Read only for codes the results give. The value is the
# code's names joined with ``;`` (split when a code is looked up: a few codes per run, of ~7,900).
AIRPORT_PLACES: dict[str, str] = dict(line.split("|", 1) for line in AIRPORTS.split("\n"))
