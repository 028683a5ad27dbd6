"""Person names and places in free text, from gazetteers and context cues (no model).

A redactor that misses names lets most of what identifies a person through, but a name is just a run of
capitalised words: "Rachel Johnson", and also "New York", "Best Regards" and "Customer Service".  This
module decides from what a reader would use:

- **gazetteers** (``pii_gazetteer_data``, built from the US census name lists, GeoNames and Faker's
  locale lists by ``pii_gazetteer_build.py``): 21,350 first names, 39,467 surnames, 326 countries, US
  states and continents, 56,736 cities of at least 15,000 people and smaller towns;
- **cues before the words**: a title ("Mr", "Dr", "Frau"), a phrase that introduces a person ("my name
  is", "Dear", "signed", "regards,", "From:", "Name:"), a role noun ("customer", "patient",
  "cardholder"), a verb of contact ("call", "ask for", "reach"), or for places a preposition or a phrase
  that introduces a place ("in", "from", "lives in", "based in", "City:");
- **cues after**: an e-mail address in angle brackets or parentheses, a verb of saying ("wrote",
  "said");
- **shape**: a known first name followed by a capitalised word that is not a common word, a place or
  an organisation word; a first name that is also an English word ("Will", "May", "Grace") needs a cue
  or a known surname and no sentence start.

Places need a cue (or the "City, Region" layout): "Berlin" alone is as often a company or a topic.
After a weak place cue ("in", "to", "left") a town no list holds counts when shaped like a town's name
("Montreuil-sur-Loir", "Vila Nova do Campo", "Quellendorf"), and "our Brembilla office" names a site.
Each match has a confidence; the strongest evidence sets it.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Iterator
from typing import Final

from ..text import lower
from .pii_gazetteer_data import CITIES, FIRST_NAMES, REGIONS, SURNAMES
from .prefilter import regex_pieces, trie_pattern

__all__ = [
    "ALL_SCANS",
    "NAME_SCANS",
    "NAME_TYPES",
    "POSTCODE_LABELS",
    "NameMatch",
    "find_names",
    "may_find",
]


def _words(text: str) -> frozenset[str]:
    """The words of a space-separated list (the tables below read as prose that way)."""
    return frozenset(text.split())


def _phrases(text: str) -> frozenset[str]:
    """The phrases of a ``|``-separated list."""
    return frozenset(text.split("|"))


#: The types this module reports, and their categories.
NAME_TYPES: dict[str, str] = {"person": "personal", "location": "location"}
# The evidence of the addresses this pass reads whole (street, house number, town, postcode): in
# ``detect_pii`` they tie with the typed ``postal_address`` patterns, and the longer span wins (h18e).
ADDRESS_EVIDENCE: Final = frozenset(
    ("street_address", "street_line", "postcode_line", "po_box", "unit_street")
)

_FIRST: Final = frozenset(FIRST_NAMES.split("|"))
_SURNAME: Final = frozenset(SURNAMES.split("|"))
_REGION: Final = frozenset(REGIONS.split("|"))
# Cities whose name is also a common capitalised word ("in Progress", "in Reading the file"): left out.
_NOT_A_CITY: Final = _words(
    "Enterprise Temple Metro Mission Mobile Sale Independence Surprise Paradise Union Tours Split Most "
    "Reading Nice Orange Normal Bath Bury Sandy Buffalo Mons Commerce Industry Opportunity Liberty Marina "
    "Progress Justice Pace Deal Of Along Much Gap Bar Hull Battle Wells Ely Rugby Street Date Pride"
)
_CITY: Final = frozenset(CITIES.split("|")) - _NOT_A_CITY
_PLACE: Final = _REGION | _CITY
# Listed towns named like a month ("March", Cambridgeshire): after a bare preposition a month (h23g).
_MONTH_TOWNS: Final = _PLACE & _words(
    "January February March April May June July August September October November December"
)
# First words of the places of several words ("New" of "New Zealand"), to try the longer names there.
_PLACE_PREFIXES: Final = frozenset(p.split()[0] for p in _PLACE if " " in p)
# The longest place name, in words ("Rio de Janeiro", "Saint Vincent and the Grenadines").
_PLACE_WORDS: Final = max(len(p.split()) for p in _PLACE)

# First names that are also common English words or words often capitalised: they count as a first
# name only with a cue, or before a known surname away from a sentence start.
_AMBIGUOUS_FIRST: Final = _words(
    "Al Amber An Angel April Art August Autumn Bell Bill Bob Buck Bud Carol Carry Chance Chase Christian "
    "Clay Cliff Coy Crystal Daisy Dale Dawn Dean Dick Don Drew Dusty Earl Ed Else Ernest Faith Forest "
    "Frank Gay Gene Ginger Glen Golden Grace Grant Guy Ha Harley Heather Holly Hope Houston Hunter In Iris "
    "Ivy Jack Jade Jay Jean Joy June King Kit Lance Lane Le Lily Long Love Ma Mack Major Mark Marshall "
    "Mason Max May Melody Mercy Merry Miles Misty Moon Nova Ok Olive Ora Pa Page Pat Pearl Penny Precious "
    "Prince Ray Reed Rich Rocky Rod Rose Royal Ruby Rusty Sandy Season So Son Spring Star Sterling Sue "
    "Summer Sun Sunny Tad Van Velvet Violet Wade Will Winter Young Georgia Virginia Carolina Dakota Paris "
    "Florence Victoria Charlotte Austin Jackson Lincoln Madison Chelsea Sydney Adelaide Regina Asia India "
    "China Jordan Israel Chad Sierra Denver Dallas Phoenix Tyler Logan Cameron Taylor Morgan Parker "
    "Harper Carter Cooper Sawyer Spencer Wallace Walker"
)
# Capitalised words that are never part of a person's name: function words, greetings, titles of
# roles, organisation and place words, days and months.  A run of capitalised words is cut at them.
_NOT_NAME: Final = _words(
    "What When Where Why How Who Whom Whose Which There Here "
    "A An The This That These Those It Its I Im I'm We You Your Our My Me He She They Them His Her "
    "And Or But If Then So As At By For From In Into Of On To With Without Via Per Not No Yes Is Are Was "
    "Be Do Does Did Has Have Had Can Could Will Would Should May Might Must Shall Let Please Pls Kindly "
    "Hi Hello Hey Dear Thanks Thank Regards Best Cheers Sincerely Yours Kind Warm Greetings Welcome "
    "Ok Okay Sorry Note Re Fwd Fw Subject Attn Cc Bcc Sent Date Time Name Names Signed Signature "
    "Mr Mrs Ms Miss Mx Dr Prof Sir Madam Dame Lord Lady Herr Frau Mme Mlle Monsieur Madame Rev Hon "
    "Customer Customers Client Patient User Users Applicant Employee Staff Tenant Cardholder Beneficiary "
    "Holder Member Guest Passenger Driver Student Candidate Caller Recipient Sender Owner Manager Agent "
    "Admin Administrator Contact Account Team Support Service Services Desk Help Sales Billing Security "
    "Customer Department Dept Office Group Company Co Corp Corporation Inc Ltd Llc Plc Gmbh Ag Sa Bank "
    "University College School Elementary Academy Music Records Studios Media Hospital Clinic Center "
    "Centre Institute Foundation Association Society Brothers Bros Labs Systems Solutions Technologies "
    "Consulting Partners Holdings Industries Enterprises Diagnostics Healthcare Capital Ventures "
    "Logistics Software Analytics Pharmaceuticals Motors Foods Insurance Financial "
    # Roles written capitalised before a name ("Producer Vala Valberg"): the run is cut there and the
    # role, read lower-cased before the name, is its cue (issue 16, fourth pass).
    "Producer Director Songwriter Singer Composer Founder Ceo Country "
    "Club Council Committee Board Ministry Agency Authority Court Police Church Hotel Airport Station "
    "Airlines Airways Railway Store Shop Market Mall Museum Library Mountain Apt Suite Unit Flat Studio "
    "Box "
    # Rooms, plans and publications: "moved to Conference Room B", "Entertainment Weekly".
    "Conference Meeting Room Rooms Floor Building Review Project Release Notes Plan Plans Dashboard "
    "Panel Settings Orchestra Band Choir Ensemble Weekly Daily Times Post News Magazine Journal "
    "Gazette Herald Tribune Entertainment River Lake Mount Mont Cape Bay Valley Falls "
    "Island Islands Saint St Ste North South East West Northern Southern "
    "Eastern Western Central Upper Lower New Old Great Little Grand Royal National International Global "
    "General United Federal State States City County Province Region District Republic Kingdom Empire "
    "Street Road Avenue Ave Boulevard Blvd Drive Lane Way Place Square Terrace Parkway Highway Route Rd "
    "Monday Tuesday Wednesday Thursday Friday Saturday Sunday Mon Tue Wed Thu Fri Sat Sun January "
    "February March April May June July August September October November December Jan Feb Mar Apr Jun "
    "Jul Aug Sep Sept Oct Nov Dec Today Tomorrow Yesterday Morning Evening Night Christmas Easter "
    "English French German Spanish Italian Chinese Japanese American British European Indian "
    "Error Warning Info Debug Status Order Invoice Ticket Issue Request Report Update Version "
    "Release Section Chapter Table Figure Step Item Product Model Total Amount Payment Card "
    "Credit Debit Phone Mobile Email Mail Address Home Work Office Login Password User Id Number No "
    "Open Closed Done New Pending Yes True False None Null Api Url Http Https Json Http Sql Python Java "
    "Google Microsoft Apple Amazon Facebook Meta Twitter Github Slack Zoom Windows Linux Android Ios"
)
# The words of ``_NOT_NAME`` that end an organisation's name.
_ORG_WORDS: Final = _words(
    "Team Support Service Services Department Dept Office Group Company Co Corp Corporation Inc Ltd Llc "
    "Plc Gmbh Ag Sa Bank University College School Elementary Academy Music Records Studios Media "
    "Hospital Clinic Center Centre Institute Foundation Association Society Brothers Bros Labs Systems "
    "Solutions Technologies Consulting Partners Holdings Industries Enterprises Diagnostics Healthcare "
    "Capital Ventures Logistics Software Analytics Pharmaceuticals Motors Foods Insurance Financial Club "
    "Council Committee Board Ministry Agency Authority Hotel Airport Station Airlines Airways Railway Store "
    "Shop Market Mall Museum Library Orchestra Band Choir Ensemble Weekly Daily Times Post News Magazine "
    "Journal Gazette Herald Tribune"
)
_TITLES: Final = _words(
    "mr mrs ms miss mx dr prof sir madam dame lord lady herr frau mme mlle monsieur madame rev hon"
)
# Where a run of capitalised words is cut: the words above and the titles with their dot ("Dr."), as
# the tokens write them (a capital, then lower case), so that no token is lower-cased to be looked up.
_STOP: Final = (
    _NOT_NAME | frozenset(t.capitalize() for t in _TITLES) | frozenset(t.capitalize() + "." for t in _TITLES)
)

# A capitalised word standing alone: Latin letters with accents, inner apostrophes and hyphens
# ("O'Brien", "Karl-Jürgen"), a trailing dot for titles, and initials ("J. Smith").  At least one
# lower-case letter follows the capital, so keys, hashes and all-capital words give no candidates.  The
# pattern starts with a character class, then a look-behind over it (the idiom of ``pii_types``), so
# that ``re`` skips straight to capitals.
_UPPER: Final = "A-ZÀ-ÖØ-ÞĀĂĄĆĈĊČĎĐĒĔĖĘĚĜĞĠĢĤĦĨĪĬĮİĲĴĶĹĻĽĿŁŃŅŇŊŌŎŐŒŔŖŘŚŜŞŠŢŤŦŨŪŬŮŰŲŴŶŸŹŻŽ"
_LOWER: Final = "a-zß-öø-ÿā-ž"


def _capitalised(upper: str, lower: str) -> re.Pattern[str]:
    return re.compile(
        rf"[{upper}](?<![\w'’\-].)(?:(?:[{lower}]+|['’][{upper}]?[{lower}]+)(?:['’][A-Za-z][{lower}]*|(?<=Mc)[A-Z][{lower}]*)*"
        rf"(?:-[{upper}{lower}][{lower}]+)*\.?|\.(?=[ \t][{upper}]))(?![\w@])"
    )


_CAPITALISED: Final = _capitalised(_UPPER, _LOWER)
# The same pattern for ASCII texts (most): the accented letters cannot occur there, and ``re`` tests
# each character of the text against the first class, which is cheaper without them.  Same matches.
_CAPITALISED_ASCII: Final = _capitalised("A-Z", "a-z")
_PARTICLES: Final = _words(
    "van von de der den del della di da du do dos das le la las los bin ibn al ter ten y "
    # The particles of German, French and English town names ("Bad Homburg vor der Höhe", "Frankfurt
    # am Main", "Châlons sur Marne", "Stratford upon Avon", "Lysá nad Labem", "Podgorje pri Slovenj Gradcu"):
    # a listed town goes on through them.
    "vor am an im ob bei sur sous lès upon nad pod pri"
)
# Abbreviations whose dot is part of the word; any other trailing dot ends a sentence.
_DOTTED: Final = _words("Mr. Mrs. Ms. Mx. Dr. Prof. St. Mme. Mlle. Rev. Jr. Sr.")

# Cues: the (up to four) lower-case words before a name, looked up as one string.
_TITLE_CUES: Final = frozenset(_TITLES)
_STRONG_CUES: Final = _phrases(
    "my name is|my name's|name is|i am|i'm|this is|dear|signed|signed by|regards|sincerely|yours|"
    "attn|attention|c/o|care of|full name|first name|last name|surname|contact person|author|"
    "customer|client|patient|applicant|employee|tenant|cardholder|card holder|beneficiary|"
    "account holder|holder|member|guest|passenger|driver|student|candidate|caller|recipient|sender|"
    "owner|landlord|manager|supervisor|assignee|reporter|requester|nurse|doctor|physician|witness|"
    "spouse|husband|wife|son|daughter|mother|father|brother|sister|friend|colleague|ask for|"
    "speak to|speak with|talk to|leave it with|hand it to|assigned to|approved by|reviewed by|"
    "written by|sent by|prepared by|on behalf of|according to|addressed to|name on card|"
    "name on the card|name on account|"
    "name on licence|name on license|name on the licence|name on the license|"
    # Naming and reporting verbs, and roles a text names a person by (issue 16, third pass): "people
    # call me X", "was called X", "says X", "my kid X", "songwriter X".
    "call me|calls me|says|said|asks|asked|replied|kid|child|commenter|producer|"
    "songwriter|singer|composer|director|ceo|founder|founders|co-founder|heard|"
    # Credits and a partner's name (issue 16, fourth pass): "directed by X and starring Y".
    "starring|directed by|sung by|performed by|featuring|features|partner's name|wife's name|husband's name|"
    "maiden name"
)
# Roles a text names a person by, and follow-ups with a person (h22f): "tennis player Kelima Kisilak",
# "Follow up with Nermina Portič".  Strong before two words or more, weak before one ("Professional
# writer Winner of the Nobel Peace Prize": a listed surname that is a word).
_ROLE_CUES: Final = _phrases(
    "player|actor|actress|artist|writer|novelist|poet|painter|guitarist|drummer|bassist|rapper|"
    "journalist|coach|athlete|lawyer|attorney|keynote speaker|follow up with|followed up with|"
    "check with|checked with|meet with|met with|get in touch with|got in touch with"
)
# Of the strong cues, those that name the person: after them one capitalised word is a name even when
# no list holds it ("My name is Sora", "people call me Haruaki", "What's your last name? Pisano").
_NAMING_CUES: Final = _phrases(
    "my name is|my name's|name is|call me|calls me|full name|first name|last name|surname|"
    # A relative named after "my" or "our" (h17d): "remove my kid Timotea from the will".
    "my kid|my son|my daughter|my child|my wife|my husband|my brother|my sister|my mother|my father|"
    "my mom|my dad|my grandson|my granddaughter|my nephew|my niece|my cousin|my uncle|my aunt|"
    "our kid|our son|our daughter|our child|"
    # A naming verb and its object (h22f): "She named him Kristine", "they called her Ivo".
    "named him|named her|named them|called him|called her|name him|name her|christened|"
    # Credits (h25g): one word after them is the person credited even when no list holds it ("directed
    # by Hitchcock and starring Szakács").  "featuring" stays a strong cue only ("featuring Python 3").
    "starring|co-starring|directed by|sung by"
)
# "from", "to", "by", "contact" and the contact verbs also come before places and companies: after
# them a single word must be a known first name, several words must hold a known first or surname.
# Written as a label ("Contact: ..."), a weak cue is a strong one.
_WEAK_CUES: Final = _words(
    "from for with to by cc best thanks thx cheers contact reach call email ping hi hello hey user "
    "username name "
    # A question's auxiliary comes before its subject: "Can Sonia confirm ...", "did Ravi call?".
    "can could will would should did does has was is "
    # "a mother named Ruth", but also "a system called Deep Speech": a listed name must be there.
    "called named"
) | {"thank you", "good morning", "good afternoon", "good evening", "morning", "afternoon", "evening"}
# What only strikes a place (h25g): "The storm hit Ruthside hard", "an earthquake struck Soltau".  The
# subject is said: "hit" alone comes before keys and people ("hit Save", "hit Mark").
_STRIKING_CUES: Final = "|".join(
    f"{subject} {verb}"
    for subject in (
        "storm", "storms", "hurricane", "typhoon", "cyclone", "tornado", "earthquake", "quake", "flood",
        "floods", "flooding", "wildfire", "wildfires", "fire", "blizzard", "heatwave", "drought", "tsunami",
        "landslide", "mudslide", "snowstorm", "hailstorm", "rainstorm", "windstorm",
    )
    for verb in (
        "hit", "hits", "struck", "strikes", "battered", "ravaged", "swept", "swept through", "tore through",
    )
)  # fmt: skip
_PLACE_CUES: Final = _phrases(
    # A listed town visited (h25g): "We visited Granada last year", "they toured Soltau".
    "visited|toured|explored|" + _STRIKING_CUES + "|"
    "in|from|to|at|near|across|around|outside|throughout|visiting|visit|lives in|living in|live in|"
    "based in|located in|moved to|moving to|relocated to|born in|raised in|grew up in|"
    "grew up near|raised near|born near|lives near|living near|live near|based near|"
    "stayed in|staying in|stopped in|stopping in|"
    "headquartered in|flying to|flight to|travel to|travelling to|traveling to|trip to|ship to|"
    "shipped to|deliver to|delivered to|city|town|country|state|region|location|place of birth|"
    "left|leaving|departed|departing|reached|via|towards|toward|drove to|flew to|"
    "birthplace|hometown|residence|resident of|citizen of|native of|where|"
    # A listed town after an address's label ("Billing address: Tampere"; h18e): a first name there is
    # the addressee's (``_SHARED_CUES``).
    "address|"
    # Streets: "lives on Valadouro 3 street", "the north side of Rissik St.", "the corner of X St."
    "lives on|living on|live on|side of|corner of|address is"
)
# Staying or stopping somewhere (h24f): strong place cues, but "in March" after them is as often a time
# ("Prices stayed in March", "we stopped in May"), so a month stays a month there (``_MONTH_TOWNS``).
_STAY_CUES: Final = frozenset(("", "stayed in", "staying in", "stopped in", "stopping in"))
# Place cues after which any capitalised words are a place, known or not ("lives in Kangerlussuaq").
_STRONG_PLACE_CUES: Final = _phrases(
    _STRIKING_CUES + "|"
    "originally from|hails from|moved here from|comes from|"
    "lives in|living in|live in|based in|located in|moved to|moving to|relocated to|born in|"
    "raised in|grew up in|headquartered in|city|town|place of birth|birthplace|hometown|resident of|"
    "native of|where|lives on|living on|live on|side of|corner of|"
    # A form's "Residence:" label (h18e), read only with its colon like the labels below.
    "residence|location|"
    # Travel: only a place is flown to, landed in or commuted from (h19d): "Just landed in
    # Bestchester, will call later", "She commutes from Pichondan".
    "flew to|flying to|fly to|flown to|flight to|flights to|landed in|landing in|arrived in|arriving in|"
    "touched down in|drove to|driving to|commutes from|commute from|commuting from|relocated from|"
    "moved from|moving from|moved away from|heading to|headed to|heading back to|headed back to|"
    "travelled to|traveled to|travelling to|traveling to|trip to|vacation in|holiday in|holidays in|"
    # Going back to a place (h23g): "I returned to Chatriant after the course".
    "returned to|returning to|came back to|went back to|moved back to|"
    # Living or growing up near a place, staying or stopping in it on a trip (h24f): "She grew up near
    # Martineaudan", "We stopped in Brunetdan on the way back".
    "grew up near|raised near|born near|lives near|living near|live near|based near|"
    "stayed in|staying in|stopped in|stopping in|"
    # An address given as a town alone (h22f): "My address is Virolahti.", "Billing address: Olanes"
    # (a label: with its colon only).  A listed first name there stays the addressee's.
    "address is|address|"
    # A home town named in running text (h22f): "the band's home city Montehermoso: ...".
    "home city|home town"
)
# Of those, the ones that are labels: they count only with a colon ("City: Hove", not "City Gardens";
# "Where: Hafnir Country Club", not "where Python runs").
_LABEL_PLACE_CUES: Final = frozenset(
    ("city", "town", "place of birth", "birthplace", "hometown", "where", "residence", "location", "address")
)
# The last words of the cue phrases: a word before a segment that is none of them starts no cue.
_CUE_LAST_WORDS: Final = frozenset(
    p.split()[-1]
    for table in (_TITLE_CUES, _STRONG_CUES, _WEAK_CUES, _NAMING_CUES, _ROLE_CUES)
    for p in table
) | frozenset(t + "." for t in _TITLE_CUES)
_PLACE_CUE_LAST_WORDS: Final = frozenset(p.split()[-1] for p in _STRONG_PLACE_CUES)
# Place cues after which a first name is as likely as a place ("to Charlotte", "from Jordan").
_SHARED_CUES: Final = frozenset(("to", "from", "at", "address", "visited", "toured", "explored"))
_CUE_WINDOW: Final = 48
# A line that is a cue for the words alone on the next line (h19d): a form's label written without its
# colon, or a sign-off written without its comma ("cheers⏎Erika", "Best⏎Trevor", "Name⏎Heather Monroe").
_LINE_CUES: Final = _phrases(
    "cheers|best|thanks|thx|thank you|many thanks|thanks again|regards|best regards|kind regards|"
    "warm regards|best wishes|sincerely|yours|yours truly|all the best|talk soon|take care|"
    "name|full name|contact|contact person|customer|customer name|signed|location|city|town|hometown|"
    "residence|place of birth|birthplace"
)
# A greeting, and what ends the one word greeted after it: a comma, "!", a dash, the line's end.
_GREETINGS: Final = _words("hi hello hey morning afternoon evening")
# Thanks and sign-offs before the one addressed, read like a greeting (h23g): "Thanks Jan, that fixed
# it.", "Cheers, Morgan" at a line's end (a listed first name that is also a word or a surname).
_VOCATIVES: Final = _GREETINGS | _words("thanks thx cheers best")
_AFTER_GREETED: Final = re.compile(r"[ \t]*(?:[,!]|[-–—][ \t]|\n|$)")
_LINE_CUE_STRIP: Final = " \t!.-"
# Up to four words (letters, inner apostrophes, hyphens and dots) alone on their line.
_ALONE_ON_LINE: Final = re.compile(r"[^\W\d_][\w'’.\-]*(?:[ \t]+[^\W\d_][\w'’.\-]*){0,3}[ \t]*(?:\n|$)")
_CUE_STRIP: Final = " \t\n:,-"
_BLANKS: Final = " \t\n"
_WORD_STRIP: Final = "\"'“”‘’()[]<>*_?"
# After a name: an e-mail in brackets, a verb of saying (a person wrote this).
_AFTER_PERSON: Final = re.compile(
    r"[ \t]*(?:<[^<>@\s]{1,64}@|\([^()@\s]{1,64}@|(?:wrote|writes|said|says|asked|replied|called|"
    r"emailed|phoned|texted|mentioned|confirmed|reported|complained|requested)\b"
    # A role only a person holds on an account or a deed (h22f): "add Aleandro Mazzi as a beneficiary".
    r"|as[ \t]+(?:an?[ \t]+|the[ \t]+|my[ \t]+|our[ \t]+|his[ \t]+|her[ \t]+)?(?:beneficiary|guardian|"
    r"executor|executrix|trustee|co-?signer|authori[sz]ed[ \t]user|joint[ \t](?:owner|holder|account)|"
    r"emergency[ \t]contact|next[ \t]of[ \t]kin|dependent|dependant|power[ \t]of[ \t]attorney|"
    r"signatory|referee|guarantor)\b)"
    # An apposition then a verb of saying (h22f): "Kauan Ribeiro, the Therapist, sports, said: ...".
    r"|,[ \t]+(?:the|a|an|our|their|his|her)[ \t]+[^,\n]{1,40}(?:,[^,\n]{1,20})?,[ \t]+"
    r"(?:said|says|told|added|explained|noted|wrote|replied|commented)\b"
)
# After a listed first name (not an English word or a place): what only a person does or has.  A
# possessive ("Sophia's daughter"), a verb of a person's doing or being ("Albina is very reliable",
# "Erik had given", "Artemio lives on"), a vocative ("Gottfrid, can I ..."), or a speaker's label at a
# line start ("Laetitia: What a wife.").  "Berlin is" and "Jordan is" stay out: places and ambiguous
# first names are not read this way.
_AFTER_FIRST_NAME: Final = re.compile(
    r"(?:'s|’s)\b|[ \t]+(?:is|was|has|had|have|will|would|can|could|did|does|isn't|wasn't|hasn't|"
    r"doesn't|didn't|lives|lived|works|worked|spent|shouted|listed|loves|loved|likes|liked|wants|"
    r"wanted|needs|needed|went|goes|came|comes|knows|knew|thinks|thought|feels|felt|agreed|decided|"
    r"told|tells|gave|gives|sent|met|married|joined|left|moved|studied|grew|became|speaks|spoke"
    # Verbs of what a person did in a thread or a meeting (h24f): "then Daniel showed up".
    r"|showed|signed|approved|promised|suggested|insisted|apologi[sz]ed|pointed|explained|noticed|"
    r"answered|arrived|returned|handed|forgot|remembered|owes|owed)\b"
    r"|,[ \t]+(?:can|could|would|will|please|do|did|are|have|you|thanks|thank)\b"
    r"|:[ \t]*[\"“A-Z]"
)
# After a listed first name, what only a person does, said of one word (h24f): a first name that is also
# a town's or a word ("Mary", "Teresa", "Jack") is a person here too.  Oneself and another ("Yesterday
# Shelby and I went over the logs", "between Sean and me"); an adverb, then a verb in the past ("then
# Mary finally showed up", "Lucas just said").
_ONLY_PERSON_AFTER: Final = re.compile(
    r"[ \t]+and[ \t]+(?:I|me|myself)\b(?![’'\-])"
    r"|[ \t]+(?:finally|just|also|then|never|always|already|still|later|soon|suddenly|eventually|"
    r"quickly|actually|really|kindly)[ \t]+[a-z]+(?:ed|ent|ame|aid|old|ook|ave|ot|ew)\b"
    # What a body does, which no town or firm does (h25g): "Zachary shouted at him", "then Florence
    # laughed".  Not "insisted" or "promised": "Washington insisted" is a government.
    r"|[ \t]+(?:shouted|yelled|screamed|whispered|laughed|smiled|grinned|giggled|cried|sobbed|sighed|"
    r"nodded|frowned|winked|shrugged|blushed|apologi[sz]ed|texted|e-?mailed)\b"
)
# After capitalised words no list holds (issue 16, fourth pass): a verb of a person's doing or being,
# then, in the rest of its line, a word only a person takes ("Bekbolat is a very sympathetic person",
# "Saidali had given Saidali his address", "Albina is very reliable. You can always depend on him").
# "Python is fast" and "Acme has offices" have no such word.
_PERSON_VERB_PRONOUN: Final = re.compile(
    r"[ \t]+(?:is|was|had|has|will|would|can|could|did|does|lives|lived|works|worked|spent|shouted|"
    r"listed|loves|loved|likes|liked|wants|wanted|went|came|knows|knew|thinks|thought|feels|felt|"
    r"decided|told|gave|sent|met|married|joined|moved|studied|grew|became|began|begins|speaks|spoke)\b"
    r"[^\n]{0,80}?\b(?:he|she|him|his|her|hers|himself|herself|He|She|His|Her|person|man|woman)\b"
    # Places and firms do not live anywhere: "Kan Yoshioka lives at 227 ...".
    r"|[ \t]+(?:lives|lived)[ \t]+(?:at|in|on)\b"
)
# A possessive before what a person has ("Mashuu's address", "Sietske van der Wardt's killers").
_PERSONAL_POSSESSION: Final = re.compile(
    r"(?:'s|’s)[ \t]+(?:address|home|house|wife|husband|son|daughter|mother|father|parents|brother|"
    r"sister|family|children|kids|killers?|murder|death|funeral|birthday|phone|email|novel|song|songs|"
    r"verses|poems?|book|books|lawyer|doctor|kid|child|boss|girlfriend|boyfriend|mom|dad|baby|"
    r"grandmother|grandfather|grandson|granddaughter|fiancée?|widow|widower)\b"
)
# Either of the two above, read once for a single capitalised word before ``_unlisted_person`` is asked.
_UNLISTED_AFTER: Final = re.compile(f"{_PERSONAL_POSSESSION.pattern}|{_PERSON_VERB_PRONOUN.pattern}")
# Surnames by their shape, across languages: Slavic -ov/-ova/-ev/-eva/-ić/-ski/-sky/-enko/-wicz/-czyk,
# Nordic -sson/-dóttir/-sen, Romanian -escu, Armenian -yan/-ian, Greek -poulos/-idis/-akis, Georgian
# -shvili/-dze, Turkish -oğlu.  Read only on the last of two or more capitalised words.
_SURNAME_ENDING: Final = (
    "ov",
    "ova",
    "ev",
    "eva",
    "ić",
    "vic",
    "ski",
    "ska",
    "sky",
    "enko",
    "wicz",
    "czyk",
    "sson",
    "dóttir",
    "dottir",
    "sen",
    "escu",
    "yan",
    "ian",
    "poulos",
    "idis",
    "akis",
    "shvili",
    "dze",
    "oğlu",
    "oglu",
)
_UNIT_AFTER: Final = re.compile(r"[ \t]+(?:Apt|Suite|Unit|Ste)\b")
# After a word: what makes it part of a firm's name, not a person's or a place's.  Law and accounting
# firms are lists of surnames ("Gibson, Campbell and Bush"; "Reed & Sons"), and legal forms are often
# written in capitals ("Smith PLC"), which the capitalised-word tokens do not read.
# The list is bounded (a firm names a few partners): read from every name of a long list, an unbounded
# one made the names pass quadratic in the list's length.
_FIRM_AFTER: Final = re.compile(
    rf",[ \t]+[{_UPPER}][{_LOWER}]+(?:,[ \t]+[{_UPPER}][{_LOWER}]+){{0,12}}"
    rf"[ \t]+(?:and|&)[ \t]+[{_UPPER}][{_LOWER}]+"
    r"|[ \t]+(?:and|&)[ \t]+(?:Sons|Daughters|Partners|Associates)\b"
    r"|[ \t]+(?:PLC|LLC|LLP|LTD|INC|GmbH|AG|SA|S\.A\.|SRL|BV|NV|KG|AB|Oy)\b"
)
# Words that name a street before a person's or a place's name ("Rua Diadema", "Via Carlo Cattaneo",
# "rue Gustave Eiffel", "R José Malhoa"): the name is the street's.
_STREET_BEFORE: Final = _words(
    "r rue rua via viale avenida avda avda. av av. avenue place cours calle carrer praça praca largo "
    "travessa piazza corso strada ulica ul ul. trg boulevard bd quai chemin allée alameda rambla paseo"
)
# Before the last word of a list of capitalised words ("Alexander, Miller and "): a firm's name may end there.
_FIRM_BEFORE: Final = re.compile(
    rf"[{_UPPER}][{_LOWER}]+,[ \t]+[{_UPPER}][{_LOWER}]+(?:,[ \t]+[{_UPPER}][{_LOWER}]+)*"
    r",?[ \t]+(?:and|&)[ \t]+$"
)
_SITE_OWNERS: Final = frozenset(("the", "our", "your", "their", "its"))
# Place cues that also come before people and things ("in", "to", "left"): after them an unlisted word
# is a place only when it is shaped like a town's name (``_TOWN_PARTICLE``, ``_TOWN_ENDING``).
_WEAK_PLACE_LAST_WORDS: Final = _words(
    "in to from at near via left leaving reached towards toward visit visiting around outside across"
)
# What only town names are made of, across languages: a hyphenated particle ("Jacob-sur-Bertin",
# "Richard-la-Forêt", "Frankfurt-am-Main"), a particle between capitalised words ("Ferreira do Sul",
# "Lopes das Flores", "Castel di Sangro"), or a town-forming ending (French -ville and -bourg, German
# -dorf, -stadt, -hausen, Polish -ów and -owice, Indian -pur, -abad and -nagar, English -ford ...).
# A last word that is a listed surname is not read by its ending ("to Crawford", "at Ashton").
_TOWN_PARTICLE: Final = re.compile(
    r"-(?:sur|sous|la|le|les|lès|en|de|du|des|am|an|im|upon|on|by|under)-"
    rf"|[{_LOWER}][ \t]+(?:do|da|dos|das|de|del|della|di|du|des|la|las|los|sur|am|an|im|upon|on|nad|pod|pri|"
    r"bei|vor)"
    rf"[ \t]+[{_UPPER}]"
)
_TOWN_ENDING: Final = re.compile(
    r"(?:ville|Ville|bourg|Bourg|burg|dorf|stadt|heim|hausen|hofen|ingen|feld|hagen|furt|brück|"
    r"ów|owo|owice|pur|pura|puram|abad|nagar|garh|ganj|palli|patnam|ford|field|bury|borough|mouth|"
    rf"chester|caster|wick|thorpe|"
    # Nordic, Dutch and Hungarian town endings (h17d): "Bergen op Zoom" aside, "-berg", "-vik", "-haven",
    # "-fjord", "-kapelle", "-falva", "-város".
    rf"berg|vik|haven|fjord|kapelle|falva|város|"
    # Danish, Swedish and Hungarian ones (h18e): "Nykøbing", "Hedehusene", "Tapolcahida", "Szatmárnémeti".
    rf"købing|köping|strup|løse|hamn|háza|hida|vára|németi|halom|egyháza)(?![{_LOWER}])"
)
# English town-forming endings after a person's name ("Fowlerton", "Jacobview", "Christianport",
# "Allenburgh", "Rickardland": h18e).  On their own these endings are common words ("Preview", "Report",
# "Inland"), so they count only after a listed first name or surname of three letters or more, and not
# when the whole word is a listed surname itself ("to Ellington").
_NAME_TOWN_ENDINGS: Final = (
    "ton", "town", "view", "port", "land", "stad", "side", "shire", "fort", "burgh", "mouth", "ville",
    "haven", "bury", "borough", "berg", "furt", "chester", "field", "ford", "dale", "wood",
    # Nordic ones, short enough to need the name too: "Oleby", "Olanes", "Kristiansand", "Knutsdal".
    "by", "nes", "dal", "rup", "sted", "sand", "fors",
)  # fmt: skip


def _name_and_town_ending(word: str) -> bool:
    """Whether ``word`` is a listed first name or surname and an English town ending ("Dawsonton")."""
    if not word.endswith(_NAME_TOWN_ENDINGS) or _FLAGS.get(word, 0) & (_F_SURNAME | _F_FIRST | _F_STOP):
        return False
    for ending in _NAME_TOWN_ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            stem = word[: -len(ending)]
            if _FLAGS.get(stem, 0) & (_F_FIRST | _F_SURNAME) and not _FLAGS.get(stem, 0) & _F_STOP:
                return True
    return False


# After a capitalised word that "the" or "our" comes before: a site of an organisation, named by its
# place ("our Predosa office", "the Jülich branch").
_FACILITY_AFTER: Final = re.compile(
    r"[ \t]+(?:office|offices|branch|site|warehouse|plant|depot|campus|factory|headquarters|HQ)\b"
)
_HOUSE_NUMBER: Final = re.compile(r"\d{1,6}[a-z]?(?:[/\-]\d{1,5})?")
_UNIT_WORDS: Final = _words("flat studio unit apt apt. suite apartment")
_SENTENCE_ENDS: Final = frozenset('.!?:;\n"“([')
# "City, Region": Austin, Texas; Lyon, France.
_AFTER_CITY: Final = re.compile(rf"[ \t]*,[ \t]*([{_UPPER}][{_LOWER}]+(?:[ \t][{_UPPER}][{_LOWER}]+){{0,3}})")


# One look-up per word instead of one per table (the gazetteers are large sets: each look-up is a
# cache miss): the tables a capitalised word belongs to, as bits.
_F_FIRST: Final = 1
_F_SURNAME: Final = 2
_F_PLACE: Final = 4
_F_PREFIX: Final = 8
_F_STOP: Final = 16
_F_ORG: Final = 32
_F_REGION: Final = 64
_F_AMBIGUOUS: Final = 128


# Letters NFKD does not split into a base letter and a mark.
_FOLD_EXTRA: Final = str.maketrans(
    {"ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "đ": "d", "Đ": "D", "ß": "ss", "æ": "ae", "Æ": "Ae"}
    | {"þ": "th", "Þ": "Th", "ð": "d", "ı": "i", "œ": "oe", "Œ": "Oe"}
)


def fold(word: str) -> str:
    """``word`` without its diacritics, as people type names on keyboards without them.

    >>> fold("Kędzierzyn-Koźle"), fold("Þorlákshöfn"), fold("Łódź")
    ('Kedzierzyn-Kozle', 'Thorlakshofn', 'Lodz')
    """
    if word.isascii():
        return word
    decomposed = unicodedata.normalize("NFKD", word.translate(_FOLD_EXTRA))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _flag_table() -> dict[str, int]:
    table: dict[str, int] = {}
    for bit, words in (
        (_F_FIRST, _FIRST),
        (_F_SURNAME, _SURNAME),
        (_F_PLACE, _PLACE),
        (_F_PREFIX, _PLACE_PREFIXES),
        (_F_STOP, _STOP),
        (_F_ORG, _ORG_WORDS),
        (_F_REGION, _REGION),
        (_F_AMBIGUOUS, _AMBIGUOUS_FIRST),
    ):
        for word in words:
            table[word] = table.get(word, 0) | bit
    # Every listed word with diacritics is also found without them ("Sao Paulo", "Jiraskova"), and a
    # word of a text is looked up folded when it is not listed as written (``_tokens``).
    for word, bits in list(table.items()):
        if not word.isascii() and len(word) > 4:  # "Göd" is no "God", "Côme" no "Come"
            folded = fold(word)
            table[folded] = table.get(folded, 0) | bits
    return table


_FLAGS: Final = _flag_table()
# Places of several words, also without their diacritics (``_place_at`` compares folded text then).
_PLACE_FOLDED: Final = _PLACE | frozenset(fold(p) for p in _PLACE if not p.isascii())
_REGION_FOLDED: Final = frozenset(fold(p) for p in _REGION)


def _is_firm(text: str, word: str, end: int) -> bool:
    """Whether the text from ``end`` makes ``word`` (a single word, or "" for a longer name) a firm's.

    A list of surnames is a firm ("Gibson, Campbell and Bush"), a list with a first name that is no
    surname is people ("Julian, Virginia, and Michael"); "Smith PLC" and "Reed & Sons" are firms.
    """
    match = _FIRM_AFTER.match(text, end)
    if match is None:
        return False
    if not match.group().startswith(","):
        return True  # a legal form or "& Sons"
    for other in [word, *_CAPITALISED.findall(match.group())]:
        flags = _FLAGS.get(other, 0) if other else _F_FIRST
        if flags & _F_FIRST and not flags & _F_SURNAME:
            return False
    return True


class NameMatch:
    """One name or place: type, span, value, confidence, and the evidence that decided it."""

    def __init__(self, type: str, start: int, end: int, value: str, confidence: float, evidence: str) -> None:
        self.type = type
        self.start = start
        self.end = end
        self.value = value
        self.confidence = confidence
        self.evidence = evidence


class _Before:
    """The words before a position, lower-cased (up to ``_CUE_WINDOW`` characters), read once."""

    def __init__(self, text: str, start: int) -> None:
        window = text[max(0, start - _CUE_WINDOW) : start]
        stripped = window.rstrip(_CUE_STRIP)
        tail = window[len(stripped) :]
        self.colon = ":" in tail
        self.sentence_start = not stripped or stripped[-1] in _SENTENCE_ENDS or "\n" in tail
        if "\n" in tail and "," not in tail:
            # A line break ends the phrase before it, unless a comma leads on ("Regards,\n"), or the
            # line above is a label ("Contact person:\n", "Name\n", "Location\n") or a sign-off
            # without its comma ("cheers\n", "Best\n") and the words after stand alone on their line
            # (h19d): then that line is the cue, read as a label's.
            line = stripped[stripped.rfind("\n") + 1 :]
            if (":" in tail or lower(line).strip(_LINE_CUE_STRIP) in _LINE_CUES) and _ALONE_ON_LINE.match(
                text, start
            ) is not None:
                stripped = line
                self.colon = True
            else:
                stripped = ""
        words = lower(stripped).split()[-4:]
        self.words = [w.strip(_WORD_STRIP) for w in words]
        # The phrases that end the words before, longest first, joined once for every table asked:
        # each one word longer than the last, built from the shortest (a concatenation, not a join of
        # a new slice each; h25c).
        phrases: list[str] = []
        if self.words:
            phrase = self.words[-1]
            phrases.append(phrase)
            for k in range(len(self.words) - 2, -1, -1):
                phrase = self.words[k] + " " + phrase
                phrases.append(phrase)
            phrases.reverse()
        self.phrases = phrases

    def cue(self, table: frozenset[str]) -> str:
        """The longest phrase of ``table`` that ends the words before, or ""."""
        for phrase in self.phrases:
            if phrase in table:
                return phrase
        return ""


def _person(
    words: list[str],
    cue: int,
    after: bool,
    sentence_start: bool,
    after_first: bool = False,
    only_person: bool = False,
) -> tuple[float, str] | None:
    """Whether ``words`` name a person: the confidence and the deciding evidence, or ``None``.

    ``cue`` is 1 after a title, 2 after a strong cue, 3 after a weak one, 0 without; ``after``: an
    e-mail address or a verb of saying follows; ``after_first``: ``_AFTER_FIRST_NAME`` follows;
    ``only_person``: ``_ONLY_PERSON_AFTER`` follows.
    """
    first, last = words[0], words[-1]
    n = len(words)
    first_flags = _FLAGS.get(first, 0)
    known_first = first_flags & _F_FIRST != 0
    ambiguous = first_flags & _F_AMBIGUOUS != 0
    known_last = n > 1 and _FLAGS.get(last, 0) & _F_SURNAME != 0
    known = known_first or known_last or (n == 1 and first_flags & _F_SURNAME != 0)
    if cue == 1:
        return 0.9, "title"
    if cue == 4:
        return (0.9, "naming_cue+gazetteer") if known else (0.8, "naming_cue")
    if cue == 2:
        if n > 1:
            return (0.9, "cue+gazetteer") if known_first or known_last else (0.8, "cue")
        return (0.75, "cue+gazetteer") if known else None
    if after and (n > 1 or known_first):
        return 0.85, "name_before_email_or_verb"
    if (
        only_person
        and n == 1
        and known_first
        and not first_flags & (_F_STOP | _F_REGION | _F_ORG)
        and not (ambiguous and sentence_start)
    ):
        return 0.75, "first_name+only_person_after"  # "Teresa and I", "then Mary finally showed up"
    if cue == 3:
        if n == 1:
            return (0.7, "weak_cue+first_name") if known_first and not ambiguous else None
        return (0.8, "weak_cue+gazetteer") if known_first or known_last else None
    # A listed first name before what only a person does or has (``_AFTER_FIRST_NAME``), when nothing
    # stronger decided.
    context = after_first and known_first and not ambiguous and not first_flags & (_F_PLACE | _F_STOP)
    if n < 2 or any(_FLAGS.get(w, 0) & _F_REGION for w in words):
        return (0.75, "first_name+person_context") if context and n == 1 else None
    for k in range(2, n + 1):
        if " ".join(words[:k]) in _PLACE_FOLDED:
            return None  # "Hong Kong (Harbour)", "Santa Clara": a place's words may each be a name
    if known_first and not ambiguous:
        return (0.85, "first_name+surname") if known_last else (0.7, "first_name")
    if known_first and known_last and not sentence_start:
        return 0.6, "ambiguous_first_name+surname"
    return (0.75, "first_name+person_context") if context else None


def _last_word(text: str, start: int) -> str:
    """The lower-cased word before ``start`` as ``_Before`` reads its last one (or a superset's).

    Read backwards a character at a time: most words before a capitalised word are short, and the
    whole window (a slice, three ``rfind``, a lower-casing) costs more than the word.
    """
    low = start - _CUE_WINDOW if start > _CUE_WINDOW else 0
    end = start
    while end > low and text[end - 1] in _CUE_STRIP:
        end -= 1
    if end == low:
        return ""
    begin = end - 1
    while begin > low and text[begin - 1] not in _BLANKS:
        begin -= 1
    return lower(text[begin:end]).strip(_WORD_STRIP)


def _emit_person(
    text: str, words: list[str], start: int, end: int, out: list[NameMatch], last_word: str | None = None
) -> None:
    # Most segments are a capitalised word at a sentence start: settle them from one look at the word
    # before.  Without a cue ending in that word, only a listed first name starting two or more words
    # (the shape rule), or a name before an e-mail or a verb of saying, can be a person (``_person``).
    # ``last_word``: the word before ``start`` when the caller read it already.
    several = len(words) > 1
    first_name = _FLAGS.get(words[0], 0) & _F_FIRST != 0
    only_person = first_name and not several and _ONLY_PERSON_AFTER.match(text, end) is not None
    after_first = first_name and (only_person or _AFTER_FIRST_NAME.match(text, end) is not None)
    unlisted = ""  # read only when nothing else may decide (most segments end here)
    if (
        (_last_word(text, start) if last_word is None else last_word) not in _CUE_LAST_WORDS
        and not (several and first_name)
        and not after_first
        and (not (several or first_name) or _AFTER_PERSON.match(text, end) is None)
    ):
        # A single word needs what follows it: one regex rules out most (a sentence's first word).
        if several or _UNLISTED_AFTER.match(text, end) is not None:
            unlisted = _unlisted_person(text, words, end)
        if not unlisted:
            return
    before = _Before(text, start)
    last = before.words[-1] if before.words else ""
    # A house number starts with a digit (``\d``: ``str.isdecimal``); most words before a name do not.
    # Not a number joined to the name by a delimiter alone: "7,James Murphy,active" is a CSV row (h23g).
    if (last[:1].isdecimal() and _HOUSE_NUMBER.fullmatch(last) and text[start - 1 : start] in _BLANKS) or (
        len(before.words) >= 2 and before.words[-2] in _UNIT_WORDS
    ):
        return  # "12 Susan Shores", "Flat 6, Thomas Spring": a street, not a person
    if last in _STREET_BEFORE or lower(words[0]) in _STREET_BEFORE:
        return  # "Rua Diadema", "rue Gustave Eiffel": a street named after a person
    if (
        several
        # Cheap first: a street word is no first name, a street under a flat's line starts its line.
        and (
            not first_name
            or text[start - 1 : start] in _LINE_START_MARKS
            or (text[start - 1 : start] == " " and text[start - 2 : start - 1] in _LINE_START_MARKS)
        )
        and _street_named(text, words, start)
    ):
        # "Aleea Popa", "Flat 53⏎Walton Trace": a street, redacted as a place (h23g).
        unit = _UNIT_LINE_ABOVE.search(text, max(0, start - 24), start - 1)
        if unit is not None and text.rfind("\n", 0, start - 1) < unit.start():
            out.append(
                NameMatch("location", unit.start(), unit.end(), unit.group().rstrip(), 0.7, "street_name")
            )
        out.append(NameMatch("location", start, end, text[start:end], 0.7, "street_name"))
        # The town and postcode lines under the street ("Aleea Popa⏎Matca, 565774", "Walton
        # Trace⏎Begumberg⏎PR97 8BX"), each its own place.
        at = end
        for _ in range(3):
            line = _TOWN_OR_CODE_LINE.match(text, at)
            if line is None:
                break
            out.append(NameMatch("location", line.start(1), line.end(1), line.group(1), 0.7, "street_name"))
            at = line.end(1)
        return
    titled = bool(before.cue(_TITLE_CUES)) or last.rstrip(".") in _TITLE_CUES
    if _UNIT_AFTER.match(text, end) and not titled:
        return  # "Mary Plaza Suite 8" ("Miss Gaetano Schiavone Apt. 461" is a person)
    cue = 0
    if titled:
        cue = 1
    elif before.cue(_NAMING_CUES):
        cue = 4
    elif before.cue(_STRONG_CUES):
        cue = 2
        if (
            len(words) == 1
            and last in _SPEECH_TAGS
            and _SPEECH_BEFORE.search(text, max(0, start - _SPEECH_REACH), start) is not None
            and not text.startswith(("'s", "’s"), end)  # "'Done!' said Ubuntu's installer" (h25r)
        ):
            cue = 4  # "'I'm so jealous!' said Kazu", "'... direction,' says Szepesy.": the speaker
    elif before.cue(_ROLE_CUES):
        cue = 2 if len(words) > 1 else 3
    elif before.cue(_WEAK_CUES):
        cue = 2 if before.colon else 3
        if (
            cue == 3
            and len(words) == 1
            and last in _VOCATIVES
            and _AFTER_GREETED.match(text, end) is not None
            # A listed first name, even one that is a word or a town's name too ("Hi Chelsea,"); not
            # "Hello World!" nor "Hi Berlin!".
            and _FLAGS.get(words[0], 0) & (_F_FIRST | _F_REGION) == _F_FIRST
        ):
            cue = 2  # "Hey Amber - ...", "Hi Chelsea,⏎": the one greeted (h19d)
    after = (cue == 0 or cue == 3) and _AFTER_PERSON.match(text, end) is not None  # read only then
    verdict = _person(words, cue, after, before.sentence_start, after_first, only_person)
    if (
        verdict is None
        and cue == 3
        and len(words) == 1
        and words[0] in _WORD_FIRST_NAMES
        and last in _OBJECT_CUES
        and text[max(0, start - 12) : start].rstrip().endswith(last)  # "to", not a sentence's "To"
        and _WORD_NAME_AFTER.match(text, end) is not None
        and not _FLAGS.get(words[0], 0) & (_F_PLACE | _F_STOP | _F_REGION | _F_ORG)
        and not _plural_noun_after(text, end)
    ):
        # A first name that is a word, capitalised inside a sentence after a word that leads to a person
        # and before lower case: "I forwarded the thread to Grace this morning", "check with Jay before
        # merging" (h25g).  Not after a capitalised cue ("To Grace the table ..."), nor a town's name.
        verdict = (0.7, "weak_cue+word_first_name")
    if verdict is None and (cue == 0 or cue == 3):
        unlisted = unlisted or _unlisted_person(text, words, end)
        if unlisted:
            verdict = (0.7, unlisted)
    if (
        verdict is not None
        and verdict[1] == "first_name+person_context"
        and _FIRM_BEFORE.search(text, max(0, start - _CUE_WINDOW), start) is not None
    ):
        return  # "Alexander, Miller and Foster is ...": the last of a firm's surnames
    if verdict is not None and _is_firm(text, words[0] if len(words) == 1 else "", end):
        return  # "from Mitchell, Nguyen and Castaneda", "Smith PLC": a firm ("Anna, Marco and Luca" stay)
    if verdict is not None:
        out.append(NameMatch("person", start, end, text[start:end], verdict[0], verdict[1]))


# First names that are English words too (of ``_AMBIGUOUS_FIRST``), which capitalised inside a sentence
# after "to", "with" or "for" name a person far more often than anything else (h25g).  Not the words
# that are brands, virtues, seasons, titles, tools or settings there ("with Chase", "to Hope", "for
# King", "Welcome to Ruby on Rails", "set the volume to Max", "to Dean of students").
_WORD_FIRST_NAMES: Final = _words(
    "Angel Bob Carol Cliff Daisy Dale Dawn Drew Earl Ed Frank Gene Glen Grace Guy Harley Heather Holly "
    "Iris Jay Jean Lily Mack Mark Marshall Mason Melody Miles Misty Pat Penny Ray Reed Rose Rusty Sue "
    "Wade Cameron Taylor Morgan Parker Harper Carter Cooper Sawyer Spencer Tyler Logan Hunter"
)
# The words before such a name that lead to a person, and what comes after it: lower case or a clause's
# end ("to Grace this morning", "with Jay.", "cc Mark, ...").
_OBJECT_CUES: Final = _words("to with for cc thanks thank ask asked told ping call email contact")
_WORD_NAME_AFTER: Final = re.compile(r"[ \t]*+(?:(?<=[ \t])[a-z]|\Z)|[.,;!?](?:\s|\Z)")
# A plural noun right after such a word, which the word then qualifies (h25r): "with Penny loafers",
# "thanks to Grace periods", "to Iris scanners". Not the words ending in "s" that follow a person.
_WORD_AFTER: Final = re.compile(r"[ \t]+([a-z]{4,})\b")
_NO_PLURALS: Final = _words(
    "always sometimes towards afterwards besides regards thanks perhaps unless whereas across says does goes "
    "was has tells asks wants needs gets makes takes knows thinks sends"
)


def _plural_noun_after(text: str, end: int) -> bool:
    """Whether the word after ``end`` is a lower-case plural noun ("loafers", "periods"), not a word that
    follows a person ("this", "always", "besides")."""
    match = _WORD_AFTER.match(text, end)
    if match is None:
        return False
    word = match.group(1)
    return word.endswith("s") and not word.endswith(("ss", "us", "is")) and word not in _NO_PLURALS


# A speech tag after what was said (h25g): "'... direction,' says Szepesy", "jealous! said Kazu to ...".
# The one word after it is the speaker, listed or not.
_SPEECH_TAGS: Final = _words("said says asked asks replied")
_SPEECH_BEFORE: Final = re.compile(r"[,!?][\"”’']?[ \t](?:said|says|asked|asks|replied)[ \t]\Z")
_SPEECH_REACH: Final = 12


# A flat's or a studio's line, the line above a street in British and Australian addresses.
_UNIT_LINE_ABOVE: Final = re.compile(
    r"(?<![\w\-])(?:Flat|Studio|Apt\.?|Apartment|Suite|Unit)[ \t]+\d{1,5}[A-Za-z]?[ \t]*\Z"
)


_LINE_START_MARKS: Final = frozenset(("\n", ">"))


def _street_named(text: str, words: list[str], start: int) -> bool:
    """Whether capitalised words that may name a person name a street: a street word of another language
    first that is no first name ("Aleea Popa", "Bulevardul Oprea", "Intrarea Stănescu"), or a street
    type last on the line under a flat's ("Flat 53⏎Walton Trace", "Studio 9⏎Melissa Squares")."""
    if not _FLAGS.get(words[0], 0) & _F_FIRST:
        first = lower(words[0])
        if len(first) > 3 and first in _STREET_WORDS:
            return True
    # The rest only for words that start their line (most people stand inside one): a walk back over
    # blanks and a quoting ">" to the line break, not a search for it.
    line = start - 1
    while line >= 0 and text[line] in " \t>":
        line -= 1
    if line < 0 or text[line] != "\n":
        return False
    last = lower(words[-1])
    if last not in _STREET_TYPES and not (last.endswith("s") and last[:-1] in _STREET_TYPES):
        return False
    return _UNIT_LINE_ABOVE.search(text, text.rfind("\n", 0, line) + 1, line) is not None


def _unlisted_person(text: str, words: list[str], end: int) -> str:
    """The evidence that capitalised words no list needs to hold name a person, or "" (fourth pass).

    A middle initial ("Tamao K. Fukasawa"), a surname's ending on the last of several words
    ("Xenophon Maslov"), a possessive before what a person has ("Mashuu's address"), or a verb of a
    person's doing followed by a word only a person takes ("Bekbolat is a very sympathetic person").
    """
    n = len(words)
    # What follows first: it is cheap to read and rules out most segments (a capitalised word that
    # starts a sentence); the words' flags only then.
    if n == 1:
        if text.startswith(("'s", "’s"), end):
            evidence = "possessive" if _PERSONAL_POSSESSION.match(text, end) is not None else ""
        else:
            evidence = "person_verb_pronoun" if _PERSON_VERB_PRONOUN.match(text, end) is not None else ""
        flags = _FLAGS.get(words[0], 0) if evidence else 0
        if flags & (_F_STOP | _F_ORG | _F_REGION) or flags & (_F_PLACE | _F_FIRST) == _F_PLACE:
            return ""  # "Berlin is ... her": a place, as often as not (a first name too: "Albina is")
        return evidence
    for word in words:
        if _FLAGS.get(word, 0) & (_F_STOP | _F_ORG | _F_REGION):
            return ""
    if " ".join(words) in _PLACE_FOLDED:
        return ""
    if n > 2 and any(len(w) == 2 and w[1] == "." for w in words[1:-1]):
        return "middle_initial"
    last = text[max(0, end - 40) : end].split()[-1]  # as written: the tokens fold "Cvitić"
    if len(last) > 4 and last.endswith(_SURNAME_ENDING) and not _FLAGS.get(last, 0) & _F_PLACE:
        return "surname_shape"  # not "Alaska", "Geneva"
    if text.startswith(("'s", "’s"), end) and _PERSONAL_POSSESSION.match(text, end) is not None:
        return "possessive"
    if _PERSON_VERB_PRONOUN.match(text, end) is not None:
        return "person_verb_pronoun"
    return ""


def _tokens(text: str) -> list[tuple[str, int, int]]:
    """The capitalised words of ``text`` that stand alone, as (word, start, end) without a final dot."""
    out: list[tuple[str, int, int]] = []
    for match in (_CAPITALISED_ASCII if text.isascii() else _CAPITALISED).finditer(text):
        start, end = match.span()
        word = text[start:end]  # the match's text: a slice, not a second call into the match (h22e)
        if word[-1] == "." and word not in _DOTTED and len(word) > 2:
            word = word[:-1]  # a sentence end, not an abbreviation ("Smith." but "Dr." and "J.")
            end -= 1
        if word[-1] == "s" and word.endswith(("'s", "’s")) and len(word) > 3:
            word = word[:-2]  # a possessive: "Sophia's daughter" (``_AFTER_FIRST_NAME`` reads it)
            end -= 2
        if not word.isascii() and word not in _FLAGS and len(word) > 3:
            word = fold(word)  # "Divišov", "Rościsław": the lists hold them with or without marks
        out.append((word, start, end))
    return out


def _joined(text: str, left_end: int, right_start: int) -> bool:
    """Whether two capitalised words belong to one name: one space or tab, or particles between."""
    gap = text[left_end:right_start]
    if gap == " " or gap == "\t":
        return True
    if len(gap) > 12 or gap[:1] not in " \t" or gap[-1:] not in " \t":
        return False
    particles = gap.split()  # none in a gap of blanks only ("Hi David  Attached is ..."): not joined
    return bool(particles) and all(p in _PARTICLES for p in particles)


def _place_at(text: str, tokens: list[tuple[str, int, int]], i: int, stop: int) -> int:
    """How many tokens from ``i`` (up to ``stop``) name a place (the longest such name), 0 if none."""
    for n in range(min(stop - i, _PLACE_WORDS), 0, -1):
        name = text[tokens[i][1] : tokens[i + n - 1][2]]
        if name in _PLACE_FOLDED or (not name.isascii() and fold(name) in _PLACE_FOLDED):
            return n
    return 0


# After a town's name, what is named after towns (issue 16, fourth pass): "Hafnir Country Club",
# "Tuttlingen bridge is falling down".
_LANDMARK_AFTER: Final = re.compile(
    r"[ \t]+(?:Country[ \t]Club|Golf[ \t]Club|Golf[ \t]Course|[Bb]ridge|[Cc]athedral|"
    r"Town[ \t]Hall|[Rr]ailway[ \t][Ss]tation|[Tt]rain[ \t][Ss]tation)\b"
)
# After a listed country or region with no cue before it: a verb of which it is the subject ("Norway was
# super fun", "that New Zealand is moving").  "The Botswana government" stays out.
# Countries, states and continents that are a place after a verb's participle ("serving Finland",
# "toured Peru"), standing alone (no capitalised word joined before or after): those that are no
# listed first name ("Jordan", "Georgia", "Chad" name people as often).  Issue 16, fifth pass.
_REGION_ALONE: Final = frozenset(r for r in _REGION if r not in _FIRST and r not in _AMBIGUOUS_FIRST)
# A lower-case word after a country that is no function word: the country is used as an adjective
# ("the Angola government", "a Peru-based firm"), which names no place of a person.
_REGION_ADJECTIVE: Final = re.compile(
    r"(?:-|[ \t]+(?!(?:and|or|in|on|at|for|to|from|with|is|was|are|were|has|had|have|will|would|"
    r"can|could|since|after|before|until|during|where|which|who|when|but|because|as|by|of|last|"
    r"this|next|again|today|tomorrow|yesterday|now|then|too|also)\b)[a-z])"
)
_REGION_VERB: Final = re.compile(r"[ \t]+(?:is|was|has|had|will|would|became|remains)\b")


# "of" and "on" end place cues only in these phrases ("native of", "the corner of", "lives on"); any
# other "of X" costs no reading of the cue.
_STREET_CUE_LAST_WORDS: Final = frozenset(("of", "on"))
_STREET_CUE: Final = re.compile(
    r"(?:side|corner|resident|citizen|native)[ \t]+of[ \t]+$|\bliv(?:es|e|ing)[ \t]+on[ \t]+$"
)


# Addresses that are no places: "email address is ...", "IP address: ..." (h22f).
_NOT_POSTAL: Final = _words(
    "email e-mail ip mac web wallet memory server bitcoin ethereum return reply ipv4 ipv6"
)


def _postal_address_cue(before: _Before, cue: str) -> bool:
    """Whether ``cue`` is no "address" cue, or the address is a postal one (not "email address is")."""
    if not cue.startswith("address"):
        return True
    k = len(before.words) - len(cue.split())
    return k <= 0 or before.words[k - 1] not in _NOT_POSTAL


def _unknown_place(
    text: str, tokens: list[tuple[str, int, int]], i: int, stop: int, out: list[NameMatch], last_word: str
) -> int:
    """A place missing from the gazetteer, known by its cue or by the region after it: how many tokens.

    "lives in Kangerlussuaq", "hometown: Little Snoring"; "Kangerlussuaq, Greenland".  Up to three
    capitalised words that are not common capitalised words.
    """
    n = 1
    while n < 3 and i + n < stop and tokens[i + n][0] not in _NOT_NAME:
        n += 1
    start, end = tokens[i][1], tokens[i + n - 1][2]
    if _LANDMARK_AFTER.match(text, end) is not None:
        out.append(NameMatch("location", start, end, text[start:end], 0.7, "place_before_landmark"))
        return n
    # Cheap rejections first: a region needs a comma right after, a cue its last word right before.
    comma = "," in text[end : end + 3]
    if last_word in _STREET_CUE_LAST_WORDS and _STREET_CUE.search(text, max(0, start - 24), start) is None:
        last_word = ""  # "of" and "on" start a place cue only in "the corner of", "lives on"
    if not comma and last_word not in _PLACE_CUE_LAST_WORDS:
        if last_word in _SITE_OWNERS and _FACILITY_AFTER.match(text, end) is not None:
            out.append(NameMatch("location", start, end, text[start:end], 0.7, "site_of"))
            return n
        return _town_shaped(text, tokens, i, n, last_word, out)
    region = _AFTER_CITY.match(text, end) if comma else None
    if region is not None and region.group(1) in _REGION and text[start:end] not in _REGION:
        out.append(
            NameMatch("location", start, region.end(), text[start : region.end()], 0.75, "place_region")
        )
        while i + n < stop and tokens[i + n][1] < region.end():
            n += 1
        return n
    before = _Before(text, start)
    cue = before.cue(_STRONG_PLACE_CUES)
    if cue and (before.colon or cue not in _LABEL_PLACE_CUES) and _postal_address_cue(before, cue):
        out.append(NameMatch("location", start, end, text[start:end], 0.7, "strong_place_cue"))
        return n
    if (
        last_word == "to"
        and out
        and out[-1].type == "location"
        and text[out[-1].end : start].strip() == "to"
        and text.endswith(("from ", "From "), 0, out[-1].start)
    ):
        # "moved from Gomezboeuf to Alves": after "from" a place, "to" leads to another (h19d).
        out.append(NameMatch("location", start, end, text[start:end], 0.7, "from_place_to"))
        return n
    return 0 if comma else _town_shaped(text, tokens, i, n, last_word, out)


def _town_shaped(
    text: str, tokens: list[tuple[str, int, int]], i: int, n: int, last_word: str, out: list[NameMatch]
) -> int:
    """An unlisted town after a weak place cue, known by its shape: how many tokens (0 if none)."""
    if last_word not in _WEAK_PLACE_LAST_WORDS:
        return 0
    start, end = tokens[i][1], tokens[i + n - 1][2]
    if (
        _TOWN_PARTICLE.search(text, start, end) is None
        and (
            _FLAGS.get(tokens[i + n - 1][0], 0) & _F_SURNAME or _TOWN_ENDING.search(text, start, end) is None
        )
        and not _name_and_town_ending(tokens[i + n - 1][0])
    ):
        return 0
    out.append(NameMatch("location", start, end, text[start:end], 0.65, "cue+town_shape"))
    return n


# An address written on lines, ending in a line "Country postcode" ("Finland 91900", "United Kingdom
# BN7 4QG", "Czech Republic 294 31"): the lines above it, up to its street, are its parts (issue 16,
# third pass).  Lines may carry a quoting prefix ("> ", "??? ").
_LINE_PREFIX: Final = re.compile(r"[ \t>?]*")
_COUNTRY_LINE: Final = re.compile(
    r"([^\W\d_][\w'\-]+(?:[ \t][^\W\d_][\w'\-]+){0,3})[ \t]+"
    r"(\d{3,5}(?:[ \-]\d{2,3})?|[A-Z]{1,2}\d[A-Z\d]?[ \t]?\d[A-Z]{2}|[A-Z]\d[A-Z][ \t]?\d[A-Z]\d)[ \t]*"
)
_UNIT_LINE: Final = re.compile(r"(?:Apt\.?|Suite|Unit|Flat|Apartment)[ \t]+\d{1,5}[A-Za-z]?[ \t]*")


def _may_end_country_line(text: str, start: int, end: int) -> bool:
    """Whether the line ``text[start:end]`` (its trailing blanks cut) may be a ``_COUNTRY_LINE``: each form
    of its postcode ends in a digit (``\\d``: a decimal digit of any script) or a capital A-Z, so its last
    character is one.  Exact; a look at one character instead of the pattern's backtracking over the
    words of every line (h22e)."""
    if start >= end:
        return False
    last = text[end - 1]
    return last.isdecimal() or "A" <= last <= "Z"


_TOWN_LINE: Final = re.compile(r"[^\W\d_][\w'\-]*(?:[ \t]+[^\W\d_][\w'\-]*){0,3}[ \t]*")
_STREET_LINE: Final = re.compile(r"\d{1,5}[A-Za-z]?[ \t]+\S.{0,60}")


# A town written in capitals after a place cue ("moved here from HUITTINEN", "grew up in DALA-JÄRNA"):
# the capitalised-word tokens never hold it.  A listed place after any place cue, any such word of five
# letters or more after a strong one ("lives in", "originally from").
# Greek and Cyrillic capitals too ("grew up in ΠΑΦΟΣ").
_CAPS: Final = _UPPER + "Α-ΩΆΈΉΊΌΎΏА-ЯЁ"
_CAPS_TOWN: Final = re.compile(
    rf"[{_CAPS}](?<![\w\-].)[{_CAPS}'\-]{{2,}}(?:[ \t][{_CAPS}][{_CAPS}'\-]{{1,}}){{0,2}}(?![\w\-])"
)


# The last words of every place cue: a word in capitals after none of them is no town (``_caps_towns``).
_ANY_PLACE_CUE_LAST_WORDS: Final = frozenset(p.split()[-1] for p in _PLACE_CUES | _STRONG_PLACE_CUES)


# A town named after a saint after a place cue ("left St. Felix", "delivery to Sainte Laetitia", "in
# Saint Jeanne-la-Forêt"): "Saint" cuts the runs of capitalised words, and the saint's name alone is
# a first name (h17d).
_SAINT_TOWN: Final = re.compile(
    rf"S(?<![\w\-]S)(?:aint|ainte|t\.|te\.|ankt|int|an|anta|anto|ão)[ \t\-]"
    rf"[{_UPPER}][\w'’]+(?:-[\w'’]+)*(?:[ \t][{_UPPER}][\w'’]+(?:-[\w'’]+)*)?"
)


def _saint_towns(text: str, out: list[NameMatch]) -> list[NameMatch]:
    """``out`` with the towns named after a saint that follow a place cue; they win over a person."""
    towns = [
        NameMatch("location", m.start(), m.end(), m.group(), 0.7, "cue+saint_town")
        for m in _SAINT_TOWN.finditer(text)
        if _last_word(text, m.start()) in _ANY_PLACE_CUE_LAST_WORDS
        and (m.start() == 0 or not (text[m.start() - 1].isalnum() or text[m.start() - 1] in "-'’"))
        and not any(o.type == "location" and o.start <= m.start() and m.end() <= o.end for o in out)
    ]
    if not towns:
        return out
    kept = [o for o in out if not any(o.start < t.end and t.start < o.end for t in towns)]
    return sorted(kept + towns, key=lambda m: m.start)


# A town whose first word is a compass point, "New", "Lake", "Mount" ... after a place cue ("lives in
# South Quentara", "our team in West Brelly", "the depot at Lake Ombrine"; h18e): those words are stop
# words, which cut the run, and the word after them alone read as a person or as nothing.  The words
# after must be no stop, organisation or role word ("in New Version 3").
_PREFIXED_TOWN: Final = re.compile(
    r"(?:North|South|East|West|New|Lake|Mount|Port|Fort|Upper|Lower|Little|Great)"
    rf"((?:[ \t][{_UPPER}][{_LOWER}'’\-]+){{1,2}})"
)
_PREFIXED_TOWN_CUES: Final = _words("in to from at near via visiting visit left leaving reached towards")


def _prefixed_towns(text: str, out: list[NameMatch]) -> list[NameMatch]:
    """``out`` with the towns named after a compass point or "New", "Lake" ... that follow a place cue;
    they win over a person read in their last words."""
    towns = []
    for m in _PREFIXED_TOWN.finditer(text):
        start = m.start()
        if start > 0 and (text[start - 1].isalnum() or text[start - 1] in "-'’"):
            continue
        after = m.group(1).split()
        if _FLAGS.get(after[0], 0) & (_F_STOP | _F_ORG) or after[0] in _ROLE_LABELS:
            continue  # "in New Version 3": the prefix alone names nothing
        if len(after) > 1 and (_FLAGS.get(after[1], 0) & (_F_STOP | _F_ORG) or after[1] in _ROLE_LABELS):
            after = after[:1]  # "in South Quentara Hospital": the town ends first
        last = after[-1]
        if (
            last.endswith("s")
            and not last.endswith("ss")
            and not _FLAGS.get(last, 0) & (_F_FIRST | _F_SURNAME | _F_REGION)
        ):
            continue  # a plural that is no name or region: "specializes in New Tires"
        end = m.start(1) + 1 + len(after[0]) if len(after) == 1 else m.end()
        before = _Before(text, start)
        if not ((before.words and before.words[-1] in _PREFIXED_TOWN_CUES) or before.cue(_STRONG_PLACE_CUES)):
            continue
        if any(o.type == "location" and o.start <= start and end <= o.end for o in out):
            continue
        towns.append(NameMatch("location", start, end, text[start:end], 0.7, "cue+prefixed_town"))
    if not towns:
        return out
    kept = [o for o in out if not any(o.start < t.end and t.start < o.end for t in towns)]
    return sorted(kept + towns, key=lambda m: m.start)


# A street without a house number after a place cue or before "street" (h17d): "on Spencer Street",
# "the corner of Koontz Lane St.", "refers to Charleton Ave street".  English street types only: the
# other languages' street words come first ("rue", "Via") and their streets carry numbers.
_STREET_TYPE_TOKENS: Final = _words(
    "Street St. St Dr Avenue Ave Road Rd Lane Ln Drive Boulevard Blvd Way Court Ct Place Terrace Crescent "
    "Close Square Highway Hwy Parkway Pkwy Trail Alley Grove Gardens"
)
_NAMED_STREET: Final = re.compile(
    # A hyphen may join two capitalised words ("Sale-Heyfield Road"); "St" and "Dr" need no dot (h22f).
    rf"[{_UPPER}](?<![\w\-].)[{_LOWER}'’\-]+(?:[{_UPPER}][{_LOWER}'’]+)?"
    rf"(?:[ \t][{_UPPER}][{_LOWER}'’\-]+){{0,2}}[ \t]"
    r"(?:Street|St\.|St|Avenue|Ave\.?|Road|Rd\.?|Lane|Ln\.?|Drive|Dr\.?|Boulevard|Blvd\.?|Way|Court|Ct\.?|"
    r"Place|Terrace|Crescent|Close|Square|Highway|Hwy\.?|Parkway|Pkwy\.?|Trail|Alley|Grove|Gardens)"
    rf"(?:[ \t]St\.)?(?![\w\-]|[ \t][{_UPPER}])"
)
_STREET_WORD_AFTER: Final = re.compile(r"[ \t]+street\b")
_STREET_CUE_WORDS: Final = frozenset(("on", "at", "of", "to", "in", "near", "along", "down", "off", "onto"))


def _named_streets(text: str, out: list[NameMatch]) -> list[NameMatch]:
    """``out`` with the streets named without a house number (``_NAMED_STREET``) not found yet; a street
    wins over the place or person read in its words ("Koontz" of "Koontz Lane St.")."""
    streets = []
    for match in _NAMED_STREET.finditer(text):
        start, end = match.span()
        if _FLAGS.get(match.group().split()[0], 0) & (_F_STOP | _F_ORG | _F_REGION):
            continue  # "The Street", "Google Way"
        if _last_word(text, start) not in _STREET_CUE_WORDS and _STREET_WORD_AFTER.match(text, end) is None:
            continue
        if any(o.start <= start and end <= o.end for o in out):
            continue
        streets.append(NameMatch("location", start, end, match.group(), 0.7, "cue+street"))
    if not streets:
        return out
    kept = [o for o in out if not any(o.start < t.end and t.start < o.end for t in streets)]
    return sorted(kept + streets, key=lambda m: m.start)


# The line after a street address that holds its postcode and town ("Libuňská 666⏎328 70 Fulnek",
# "Szabadság utca 71.⏎H-3870 Érd"): the address goes on there (h17d).  Since h18e also the town on one
# line and its postcode on the next ("Bevanmouth⏎N0 1RT", "2864⏎Weverlo"), a province of three letters
# and commas ("Dalbyhaven, VIC, 4040"), six-digit postcodes ("Sangeorz-Baile, 466158") and UK ones.
_LINE_TOWN: Final = (
    rf"[{_UPPER}][\w'’\-]*"
    r"(?:[ \t]+(?:[A-Z][\w'’\-]*|de|do|da|dos|das|del|di|du|la|le|van|von|der|den|nad|pod|pri|u|v|am|an|"
    r"im|bei|ob))*"
)
_LINE_POSTCODE: Final = r"(?:\d{4,6}|[A-Z]\d[A-Z][ \t]?\d[A-Z]\d|[A-Z]{1,2}\d[A-Z\d]?[ \t]\d[A-Z]{2})"
_LINE_TOWN_WORDS: Final = rf"[{_UPPER}][\w'’\-]*(?:[ \t]+[{_UPPER}][\w'’\-]*){{0,3}}"
# A line under a street: a town, a postcode after it allowed, or a postcode alone.
_TOWN_OR_CODE_LINE: Final = re.compile(
    rf"[ \t]*\n[ \t>]*((?:(?:{_LINE_TOWN_WORDS}),?[ \t]+(?:[A-Z]{{2,3}},?[ \t]+)?)?{_LINE_POSTCODE}"
    # A postcode may end the line or stand before the sentence's next words ("..., 388250 by Monday").
    rf"(?=[ \t.]*(?:\n|\Z)|[ \t]+[a-z])|(?:{_LINE_TOWN_WORDS})(?=[ \t.]*(?:\n|\Z)))"
)
_POSTCODE_TOWN_LINE: Final = re.compile(
    rf"[.,]?[ \t]*\n[ \t>]*((?:[A-Z]{{1,2}}-)?\d{{3,5}}(?:[ \-]\d{{2,3}})?[ \t]+{_LINE_TOWN}"
    # Or the town first, then the postcode (and a province before it): "Wainui 5375", "Hope, NT R3N 6M9".
    rf"|[{_UPPER}][\w'’\-]*(?:[ \t]+[{_UPPER}][\w'’\-]*){{0,3}},?[ \t]+(?:[A-Z]{{2,3}},?[ \t]+)?"
    rf"{_LINE_POSTCODE}"
    # Or each on its own line.
    rf"|[{_UPPER}][\w'’\-]*(?:[ \t]+[{_UPPER}][\w'’\-]*){{0,3}}[ \t]*\n[ \t>]*{_LINE_POSTCODE}"
    rf"|\d{{4,5}}[ \t]*\n[ \t>]*{_LINE_TOWN})"
    r"[ \t]*(?=\n|$|[.,;!?)]|[ \t]+[a-z])"
)
# A line that ends in a street and its house number, whichever comes first (h18e): "Birkenstrasse 29",
# "Strada Lungă Nr. 44", "295 Grant Hollow Apt. 950", "68 Rachael Knolls".  Only the shape: the street
# words are checked by ``_street_line_before``.
_STREET_LINE_TAIL: Final = re.compile(
    rf"(?:(?<![\w\-])(?P<named>[{_UPPER}][\w'’.\-]*(?:[ \t]+[\w'’.\-]+){{0,4}}?)[ \t]+(?:Nr\.[ \t]*)?"
    r"\d{1,5}[a-zA-Z]?(?:/\d{1,4}[a-zA-Z]?)?\.?"
    rf"|(?<![\w\-])\d{{1,5}}[A-Za-z]?[ \t]+"
    rf"(?P<numbered>(?:[{_UPPER}][\w'’\-]*[ \t]+){{0,3}}[{_UPPER}][\w'’\-]*)"
    r"(?:,?[ \t]+(?:Apt\.?|Suite|Unit|Flat)[ \t]+\d{1,5}[A-Za-z]?)?)[ \t]*$"
)


# A unit before a street's house number ("Flat 66 2 Rosario Ridge", "Apt. 374, 9 Jason Vista").
_UNIT_BEFORE: Final = re.compile(r"(?:Flat|Unit|Apt\.?|Suite|Studio|Level)[ \t]+\d{1,5}[A-Za-z]?,?[ \t]+$")


def _street_line_before(text: str, newline: int, coded: bool = False) -> int:
    """Where the street and house number that end the line ending at ``newline`` start, or -1.

    ``coded``: the next line opens with a postcode of four digits or more ("65234 Pakrac"); a name and
    a house number above it need no street word then ("Bijenička 906⏎65234 Pakrac"; h22f)."""
    line_start = text.rfind("\n", 0, newline) + 1
    low = max(line_start, newline - 80)
    match = _STREET_LINE_TAIL.search(text, low, newline)
    if match is None:
        return -1
    named = match.group("named")
    if named is not None:
        words = [lower(w.rstrip(".,")) for w in named.split()]
        if not (coded and len(words) <= 4 and words[0] not in _LOWER_NOT_NAME) and not any(
            w in _STREET_WORDS or w.endswith(_STREET_ENDINGS) for w in words
        ):
            return -1  # "Build 12⏎12345 Tests": a word a name is not
        if _FLAGS.get(named.split()[0], 0) & _F_STOP and words[0] not in _STREET_WORDS:
            return -1  # "Order 12345"
    else:
        last = lower(match.group("numbered").split()[-1])
        if last not in _STREET_WORDS and last not in _STREET_SUFFIXES:
            return -1
    unit = _UNIT_BEFORE.search(text, low, match.start())
    return unit.start() if unit is not None else match.start()


_YEAR_WORD: Final = re.compile(r"(?:19|20)\d\d")
_LINE_END: Final = re.compile(r"[ \t.,]*(?:\r?\n|\Z)")
_CODE_FIRST: Final = re.compile(r"(?:[A-Z]{1,2}-)?(?:\d{4,5}|\d{3}[ ]\d{2}|\d{4}-\d{3})[ \t]")
# Stop words that start towns ("Lake Orrimouth, YT V6M 7E3"): no refusal of a postcode line.
_TOWN_PREFIX_WORDS: Final = _words(
    "North South East West New Lake Mount Port Fort Upper Lower Little Great Saint St"
)


def _spans_index(spans: list[NameMatch]) -> tuple[list[int], list[int]]:
    """The starts of ``spans`` in order and, at each, the furthest end so far: ``_meets`` asks whether a
    span overlaps any of them in one bisection (a scan per question made long texts quadratic; h22f)."""
    ordered = sorted(spans, key=_start_of)
    starts = [m.start for m in ordered]
    reach: list[int] = []
    for m in ordered:
        reach.append(max(reach[-1], m.end) if reach else m.end)
    return starts, reach


def _meets(index: tuple[list[int], list[int]], start: int, end: int) -> bool:
    """Whether ``[start, end)`` overlaps a span of ``index`` (``_spans_index``)."""
    before = bisect.bisect_left(index[0], end)
    return before > 0 and index[1][before - 1] > start


def _postcode_lines(text: str, out: list[NameMatch]) -> list[NameMatch]:
    """``out`` with the postcode and town line after each street address found (``_POSTCODE_TOWN_LINE``):
    a street of ``out``, or a line that ends in a street's shape (``_street_line_before``), which the
    typed detectors may have found as a ``postal_address`` that this pass does not see (h18e)."""
    ends = [
        m.end
        for m in out
        if m.type == "location" and m.evidence in ("street_address", "cue+street", "po_box", "unit_street")
    ]
    found_ends = set(ends)  # looked up at every line break: a list made long texts quadratic (h22f)
    # The streets read by their shape, reported with their town line: alone they may be anything.
    streets: dict[int, int] = {}
    newline = text.find("\n")
    while newline >= 0:
        # The town line first: an anchored match that fails at once on most lines.
        town_line = _POSTCODE_TOWN_LINE.match(text, newline) if newline not in found_ends else None
        if town_line is not None:
            # Only a line that the postcode and town fill ("12345 Tests passed" is a sentence).
            coded = _CODE_FIRST.match(town_line.group(1)) is not None and (
                _LINE_END.match(text, town_line.end()) is not None
            )
            street = _street_line_before(text, newline, coded)
            if street >= 0:
                ends.append(newline)
                streets[newline] = street
        newline = text.find("\n", newline + 1)
    added: list[NameMatch] = []
    in_out = _spans_index(out)
    locations = _spans_index([m for m in out if m.type == "location"])
    town_lines: set[int] = set()  # the postcode lines added, by start (each is a whole line)
    for end in ends:
        line = _POSTCODE_TOWN_LINE.match(text, end)
        if line is not None:
            words = line.group(1).split()
            if (
                _FLAGS.get(words[0], 0) & _F_STOP and words[0] not in _TOWN_PREFIX_WORDS
            ) or _YEAR_WORD.fullmatch(words[-1]) is not None:
                continue  # "During 2014, ...": a sentence, not a town and its postcode
        if (
            line is not None
            and not _meets(in_out, line.start(1), line.end(1))
            and line.start(1) not in town_lines
            and not any(m.start < line.end(1) and line.start(1) < m.end for m in added[-2:])
        ):
            town_lines.add(line.start(1))
            value = line.group(1)
            added.append(NameMatch("location", line.start(1), line.end(1), value, 0.75, "postcode_line"))
            street = streets.get(end, -1)
            # A unit on the line above ("Apt. 962⏎5 Matawai Arcade⏎Town 7352") is the address's too.
            if street > 0 and text[street - 1] == "\n":
                above = text.rfind("\n", 0, street - 1) + 1
                prefix = _LINE_PREFIX.match(text, above)
                unit_start = prefix.end() if prefix is not None else above
                if _UNIT_LINE.fullmatch(text, unit_start, street - 1) is not None:
                    street = unit_start
            if street >= 0 and not _meets(locations, street, end):
                value = text[street:end].rstrip(" \t.,")
                added.append(NameMatch("location", street, street + len(value), value, 0.75, "street_line"))
    if not added:
        return out
    # A street line wins over a person read in it ("062 Dixon Islands").
    in_added = _spans_index(added)
    kept = [m for m in out if not _meets(in_added, m.start, m.end)]
    return sorted(kept + added, key=lambda m: m.start)


def _caps_towns(text: str) -> list[NameMatch]:
    """Towns written in capitals after a place cue."""
    out: list[NameMatch] = []
    for match in _CAPS_TOWN.finditer(text):
        start, end = match.span()
        if _last_word(text, start) not in _ANY_PLACE_CUE_LAST_WORDS:
            continue  # most words in capitals are acronyms after no place cue ("SSN", "IBAN")
        value = match.group()
        before = _Before(text, start)
        if not before.words or (before.colon and not before.cue(_LABEL_PLACE_CUES)):
            continue  # a label other than a place's ("ID: ABC123")
        titled = " ".join(w.capitalize() for w in fold(value).split())
        flags = _FLAGS.get(titled, 0) if titled in _PLACE_FOLDED else _F_STOP
        listed = not flags & (_F_STOP | _F_FIRST)
        # A listed town that is a first name too ("BODØ": Bodo) after a strong cue (h22f).
        strong = (len(value) >= 5 or not flags & _F_STOP) and before.cue(_STRONG_PLACE_CUES)
        if (listed and before.cue(_PLACE_CUES)) or strong:
            out.append(NameMatch("location", start, end, value, 0.7, "cue+capitals"))
    return out


# An address in running text with no postcode of its own (issue 16, fifth pass): after an address cue,
# a street's name with its house number ("at Tylova 42", "to 31 Trg revolucije 33", "address: 69 rue
# Vincent Auriol"), then maybe ", Town" and ", postcode".  The name is capitalised words, particles and
# at most one other lower-case word ("Trg revolucije", "Rákóczi út"); a lower-case street word may
# start it ("rue", "ul.").  The shape alone is "Windows 11" or "Chapter 3": ``_street_addresses``
# asks for evidence of a street besides the cue.
_STREET_PREFIX: Final = (
    r"(?:(?:ul|al|pl|os|str|bd|bul|av|avda|nám)\.[ \t]?|(?:rue|via|viale|calle|avenida|rua|ulica|strada|"
    r"bulevardul|avenue|boulevard|chemin|allée|piazza|corso|travessa|praça|estrada|largo|utca)[ \t]+|"
    r"P\.?O\.?[ \t]+)"
)
# Irish and Scottish names keep a capital inside ("O'Flaherty Street", "McGerr Street"): their prefix.
# Hyphenated names keep their capitals ("Martin-Ecker-Ring", "Leo-Stockhammer-Platz": h18e).
_STREET_WORD: Final = rf"(?:O['’]|Ma?c)?[{_UPPER}][{_LOWER}'’]*(?:-[{_UPPER}]?[{_LOWER}'’]*)*[{_LOWER}]\.?"
_STREET_PARTICLE: Final = (
    r"(?:de|do|da|dos|das|del|della|di|du|des|la|le|van|von|der|den|y|e|pri|na|nad|pod|u|v|am|an|im|"
    r"auf|zum|zur|i|och|og)"
)
_STREET_ADDRESS: Final = re.compile(
    rf"(?P<lead>\d{{1,5}}[A-Za-z]?,?[ \t])?"
    rf"(?P<street>{_STREET_PREFIX}?(?:{_STREET_PARTICLE}[ \t](?=[{_UPPER}]))?{_STREET_WORD}"
    rf"(?:[ \t](?:{_STREET_WORD}|{_STREET_PARTICLE}(?=[ \t][{_UPPER}]))){{0,5}}"
    # A lower-case word, or an abbreviation with its dot, or both: "Tas vezér u. 66." (h22f).
    rf"(?:[ \t](?P<low>[{_LOWER}]{{2,12}}(?:[ \t][{_LOWER}]{{1,3}}\.)?|[{_LOWER}]{{1,3}}\.))?)"
    # Romanian "Nr." before the number, and units after it: "Strada Lungă Nr. 44 Bl. 7 Sc. 2 Ap. 15",
    # "Calzada Rojo 496 Interior 340" (h18e).
    rf"(?P<number>,?(?:[ \t]Nr\.)?[ \t]\d{{1,5}}[a-zA-Z]?(?:/\d{{1,4}}[a-zA-Z]?)?\.?(?![\w\-/]))?"
    r"(?P<units>(?:[ \t]*,?[ \t]+(?:Bl|Sc|Et|Ap|Edif|Depto|Interior)\.?[ \t]*\d{1,4}[A-Za-z]?"
    r"(?![\w\-])){1,4})?"
    rf"(?P<tail>,[ \t]*(?P<town>[{_UPPER}][\w'’\-]*(?:[ /][{_UPPER}][\w'’\-]*){{0,3}})"
    rf"(?:[ \t]\d{{1,4}}(?![\w\-]))?"
    # A region between the town and its postcode: "Augsburg, Sachsen 99467" (h18e).
    rf"(?:,[ \t]*[{_UPPER}][\w'’\-]+(?=,?[ \t]*\d))?"
    # A province and a Canadian postcode too: "East Robertview, MB L9K1X1" (h18e).
    rf"(?:,?[ \t]*(?:[A-Z]{{2,3}},?[ \t]+(?=[A-Z]\d))?"
    rf"(?P<postcode>\d{{2,6}}(?:[ \-]\d{{2,4}})?|[A-Z]\d[A-Z][ \t]?\d[A-Z]\d)(?![\w\-]))?)?"
)
# Street words across languages, and the endings of street names written as one word ("Lindenweg",
# "Furuvägen", "Nørregade", "Kauppakatu"): evidence that capitalised words before a number are a street.
_STREET_WORDS: Final = _words(
    "street st road rd avenue ave av lane ln drive dr way boulevard blvd place pl square sq terrace court "
    "ct crescent close row rue allée chemin impasse quai cours via viale piazza corso vicolo calle avenida "
    "paseo plaza camino carrera rua travessa praça largo estrada alameda ulica ul trg náměstí nám nábřeží "
    "utca út tér körút sor strada bulevardul calea aleea soseaua str straße strasse gasse weg platz allee "
    "ring laan straat plein kade dreef singel gracht vej gade gata gatan väg vägen vei veien katu kuja tie "
    "tori ulitsa prospekt u "
    # Romanian (h18e): "Drumul Morii", "Intrarea Zorilor", "Splaiul Unirii", "Piața Romană".
    "drumul intrarea splaiul șoseaua piața "
    # Mexican street types: "Calzada Rojo 496", "Privada Ulloa 906".
    "calzada circuito cerrada privada andador retorno prolongación continuación periférico "
    "circunvalación callejón pasaje"
)
_STREET_ENDINGS: Final = (
    "straße", "strasse", "str.", "weg", "gasse", "platz", "allee", "laan", "straat", "plein", "dreef",
    "vej", "vejen", "gade", "gata", "gatan", "vägen", "väg", "veien", "vei", "katu", "kuja", "tie",
    "ova", "ská", "ská", "ulica", "ring", "kade",
    # Nordic, Dutch, Finnish and Slovak endings (h17d): "Parktorget", "Skogsgränd", "Olsenalléen",
    # "Isabelleboulevard", "Mikepad", "Jaysonbaan", "Mayasteeg", "Ahvenkoskenpolku", "Nevädzová".
    "torget", "torg", "gränd", "stien", "alléen", "allé", "plads", "vænget", "boulevard", "pad", "baan",
    "steeg", "polku", "ová",
    # Nordic, Finnish, Dutch, German, Czech and Slovak street endings (h18e): "Brekkemoen", "Solbakken",
    # "Ekstigen", "Kvarnbacken", "Rantabulevardi", "Koivurinne", "Petersingel", "Elenalei",
    # "Seeuferdamm", "Budčická", "Slovenska cesta".
    "engen", "bakken", "haugen", "åsen", "skogen", "toppen", "svingen", "tunet", "løkka", "jordet",
    "kroken", "brinken", "bråten", "sletta", "stranda", "gjerdet", "moen", "lunden", "kollen", "stigen",
    "backen", "leden", "slingan", "stræde", "bulevardi", "kaari", "rinne", "raitti", "singel", "lei",
    "kaai", "markt", "damm", "ufer", "steig", "chaussee", "cká", "cesta",
    # Czech, Slovak and Croatian streets named by an adjective (h25g): "Lodná 754", "Vlaška 489",
    # "Sokolovská", "Vínna 18", "Poštovní 5".  Endings no English word has.
    "ná", "ní", "ška", "čka", "ička",
)  # fmt: skip
# Street types that come last after a house number in English-speaking countries (the USPS's and
# Australia Post's lists, with plurals): evidence only as the last word of a street with a number
# before it ("4821 Corvin Viaduct", "12 Tallow Junction"; h18e).  Alone they are common nouns.
_STREET_SUFFIXES: Final = _words(
    "alley arcade bend bluff bluffs bridge brook brooks bypass canyon causeway center centre circle "
    "circles circuit cliff cliffs common commons copse corner corners course cove coves creek crest "
    "crossing crossroad curve cutting dale divide edge end esplanade estate estates expressway extension "
    "falls ferry fields flats ford fords forest forge forges fork forks freeway gap garden gardens "
    "gateway glen glens green greens grove groves harbor harbour haven heights highway hill hills hollow "
    "inlet island islands isle junction junctions knoll knolls lake lakes landing link loop manor "
    "manors meadow meadows mews mill mills motorway mount mountain mountains orchard oval overpass park "
    "parks parkway pass passage path pike pine pines plain plains plaza point points port ports prairie "
    "quadrant ramp ranch rapids ridge ridges rise river route run shoal shoals shore shores skyway "
    "spring springs spur station stravenue stream summit throughway trace track trail triangle tunnel "
    "turnpike underpass union valley valleys viaduct view views village villages ville vista walk wall "
    "wells "
    # More of Australia's and New Zealand's (h18e).
    "approach cross frontage parade promenade outlook retreat concourse boardwalk entrance grange reach "
    "strand vale wynd gate gates dell glade quay"
)
# Every word that names a street's type, for the last word of a street read after a unit (h18e).
_STREET_TYPES: Final = _STREET_SUFFIXES | _STREET_WORDS
# Lower-case words that are no part of a street's name: "in 2019 Apple released 5 phones".
_NOT_STREET_LOW: Final = _words(
    "and or the of is was are were has had have for with to at in on by as but not no it its this that "
    "than then from into onto over under about after before since until per via out up off all any some "
    "each every more most less few many much new old one two three four five six seven eight nine ten "
    "last next today tomorrow yesterday tonight soon later now please"
)
_STREET_AFTER: Final = re.compile(r"[ \t]+(?:St|Street|Rd|Road|Ave|Avenue|street|road|avenue)\b")
_STRONG_STREET_CUES: Final = _phrases(
    "address|address is|address:|addresses|lives at|live at|living at|located at|send it to|ship it to|"
    "deliver to|delivered to|ship to|shipped to|sent to|mail it to|post it to|forward it to|return it to|"
    # A home one moves to (h17d): "We moved to 746 Brewer Pine last month".
    "moved to|moving to|relocated to"
)


def _named_compound(word: str) -> bool:
    """Whether ``word`` is a listed first name or surname with a lower-case word after it, written as one:
    a street named after a person in the languages that join the words ("Jakobsenhøgda", "Ingridlund";
    h18e).  The word itself is no listed word."""
    if len(word) < 7 or _FLAGS.get(word, 0) or not word[1:].islower():
        return False
    for cut in range(3, len(word) - 2):
        if _FLAGS.get(word[:cut], 0) & (_F_FIRST | _F_SURNAME) and not _FLAGS.get(word[:cut], 0) & _F_STOP:
            return True
    return False


def _street_addresses(text: str, out: list[NameMatch]) -> list[NameMatch]:
    """``out`` with the addresses in running text that no postcode closes (issue 16, fifth pass)."""
    added: list[NameMatch] = []
    towns: list[str] = []
    for match in _CUE_STREET.finditer(text):
        if (
            match.group("address") is None
            or text[match.start() : match.start() + 2] not in _ADDRESS_CUE_STARTS
        ):
            continue
        # No house number: only a street word's street before a town and a postcode (h18e: "Strada
        # Nucului, Vadeni, 137549"), checked below.
        numberless = match.group("number") is None and match.group("lead") is None
        if numberless and match.group("postcode") is None:
            continue
        # The cheap refusals first (each only refuses: their order changes nothing found).
        low = match.group("low")
        street_end = match.end("street")
        if low is not None and (low in _NOT_STREET_LOW or low.endswith(("ed", "ing", "ly"))):
            if match.group("lead") is None or match.group("number") is not None or match.group("tail"):
                continue
            # A numbered street then a sentence's next word ("to 89 Paul Crescent by Friday"): the
            # street ends before the word (h17d).
            street_end = match.start("low") - 1
        lead = match.group("lead")
        if lead is not None and _YEAR.match(lead) is not None:
            continue  # a year, not a house number ("in 2019 Apple ...")
        start = match.start("address")
        parts = text[match.start("street") : street_end].split()
        words = [lower(w.rstrip(".,")) for w in parts]
        if "".join(words[:2]).replace(".", "") == "pobox" and match.group("number") is not None:
            # A post office box ("to PO Box 40"; h18e): "Box" is a stop word elsewhere.
            end = match.end("address") if match.group("tail") is not None else match.end("number")
            added.append(NameMatch("location", start, end, text[start:end], 0.75, "po_box"))
            continue
        town = match.group("town")
        if (
            len(words) == 1
            and words[0] in _UNIT_WORDS
            and match.group("number") is not None
            and town is not None
            and lower(town.split()[-1]) in _STREET_TYPES
            and match.end("town") == match.end("address")
        ):
            # A flat and its street with no house number ("to Flat 18, Emma Common"; h18e).
            added.append(
                NameMatch(
                    "location", start, match.end("town"), text[start : match.end("town")], 0.7, "unit_street"
                )
            )
            continue
        if len(words) == 1 and (words[0] in _UNIT_WORDS or words[0] == "level") and match.group("number"):
            # A flat, then its numbered street ("to Unit 25, 6 Andrew Beach Road, Upper Hill 8941"; h18e).
            gap = _UNIT_GAP.match(text, match.end("number"))
            numbered = _STREET_ADDRESS.match(text, gap.end()) if gap is not None else None
            if (
                numbered is not None
                and numbered.group("lead") is not None
                and lower(text[numbered.start("street") : numbered.end("street")].split()[-1])
                in _STREET_TYPES
            ):
                end = numbered.end() if numbered.group("tail") is not None else numbered.end("street")
                value = text[start:end].rstrip(".")
                added.append(NameMatch("location", start, start + len(value), value, 0.75, "unit_street"))
            continue
        if (
            _FLAGS.get(parts[0].rstrip("."), 0) & _F_STOP
            and words[0] not in _STREET_WORDS
            and not (
                # A postcode, then a town named with a compass point or "New" after an address's cue
                # ("ship it to 2990 North Albury by Thursday"; h23g).
                lead is not None
                and lead[3:4].isdecimal()  # four digits or more: "to 12 New York offices" stays out
                and len(parts) > 1
                and parts[0] in _TOWN_PREFIX_WORDS
                and bool(_Before(text, start).cue(_STRONG_STREET_CUES))
            )
        ):
            continue  # "in Version 4", "at Room 12"
        if any(
            _FLAGS.get(w.rstrip(".,"), 0) & _F_STOP and lower(w.rstrip(".,")) not in _UNIT_WORDS
            for w in parts[1:]
        ) and not (
            any(w in _STREET_WORDS for w in words[1:]) or (lead is not None and words[-1] in _STREET_SUFFIXES)
        ):
            continue  # a day, a month or a role word inside: a table or a title ("London Sun 3")
        # A street word counts anywhere but its short forms only last ("St Pancras" is a saint's name).
        street_evidence = any(
            (w in _STREET_WORDS and (len(w) > 2 or k == len(words) - 1 or (k == 0 and w == "av")))
            or w.endswith(_STREET_ENDINGS)
            for k, w in enumerate(words)
        )
        town = match.group("town")
        number = match.group("number")
        # A house number with a letter or a flat after a slash ("37E", "9c/2"; h18e); a street type of
        # the English-speaking countries last, after a house number ("4821 Corvin Viaduct").
        street_evidence = street_evidence or (lead is not None and words[-1] in _STREET_SUFFIXES)
        if (
            number is not None
            and number[0] == ","
            and any(m.type == "person" and m.start <= match.start("street") < m.end for m in out)
        ):
            continue  # "addressed to Rika Sato, 48, Pathak Marg, ...": a person, then the address
        if numberless and not any(w in _STREET_WORDS for w in words):
            continue  # "addressed to Ana Weber, Lindenallee 7, 39635 Hof": a person first
        # "The answer is Option 2b": a house letter is no evidence after a cue this weak.
        if text[match.start() : match.start() + 2] in _WEAK_ADDRESS_CUES and not (
            (street_evidence and (lead is not None or number is not None))
            or match.group("postcode") is not None
        ):
            continue
        # Not after a comma: "addressed to Akira Tanaka, 94/472, ..." is a person, then an address.
        street_evidence = street_evidence or (
            number is not None
            and number[0] != ","
            and (_HOUSE_LETTER.search(number) is not None or (len(parts) == 1 and _named_compound(parts[0])))
        )
        evidence = (
            (lead is not None and match.group("number") is not None)
            or (street_evidence and (lead is not None or match.group("number") is not None))
            or match.group("postcode") is not None
            or (town is not None and town in _PLACE)
            or bool(_Before(text, start).cue(_STRONG_STREET_CUES))  # read only when nothing else told
            or (
                match.group("number") is not None
                and _STREET_AFTER.match(text, match.end("address")) is not None
            )
        )
        if not evidence:
            continue
        if match.group("tail") is not None:
            end = match.end("address")
        else:
            end = match.end("number") if match.group("number") is not None else street_end
            if match.group("units") is not None and match.group("number") is not None:
                end = match.end("units")
        # An article before the street is no part of it ("in der Hauptstraße 5a"; h18e).
        article = _LEADING_ARTICLE.match(text, start)
        if article is not None and match.group("lead") is None:
            start = article.end()
        value = text[start:end].rstrip(".")
        end = start + len(value)
        added.append(NameMatch("location", start, end, value, 0.75, "street_address"))
        if town is not None and match.end("town") <= end and text.count(town) > 1:
            towns.append(town)
    if not added:
        return out
    kept = [m for m in out if not any(m.start < a.end and a.start < m.end for a in added)]
    # The town of an address is a place wherever else it stands ("... to Lipová 17, Dolní Lhota. I am
    # in Dolní Lhota until May"); ``_other_mentions`` repeats whole values only.
    for town in towns:
        at = text.find(town)
        while at >= 0:
            after = at + len(town)
            if (
                not (at > 0 and text[at - 1].isalnum())
                and not (after < len(text) and text[after].isalnum())
                and not any(m.start < after and at < m.end for m in kept)
                and not any(m.start < after and at < m.end for m in added)
            ):
                added.append(NameMatch("location", at, after, town, 0.7, "same_value"))
            at = text.find(town, after)
    return sorted(kept + added, key=lambda m: m.start)


# Where ``_street_addresses`` looks: after "at", "to", "in", "on", "from" or an address's label.
# The look-aheads skip at once what cannot start an address: no digit within the next 80 characters of
# the line, or a lower-case word that is no street prefix or particle ("in the", "to be").
# The pattern starts with a character class and a look-behind (the idiom of ``pii_types``), so that
# ``re`` skips to the cues' first letters; it also takes "an" and "it", which ``_ADDRESS_CUE_STARTS``
# drops.
# The cue and the blanks after it; what an address starts with; a digit within the next 80 characters
# of the line (h23h: read, consumed, by the hyperscan pass too, ``NAME_SCANS``).
_ADDRESS_CUE_LEAD: Final = (
    # A label's value may start on the next line ("Invoice to:⏎Strada ..."; h18e).
    # A label's colon after a lower-case letter ("New office: ..."; not "12:30", '"key": ...').
    r"(?:[aitofA](?<![\w\-].)(?:t|o:?|n|s|rom|ddress(?:[ \t]+is)?[ \t]*:?)|:(?<=[a-z]:))"
    r"(?:[ \t]+|[ \t]*\n(?:[ \t]*\n)?[ \t]*)"
)
_ADDRESS_START: Final = rf"(?:[\d{_UPPER}]|{_STREET_PREFIX}|{_STREET_PARTICLE}[ \t][{_UPPER}])"
_ADDRESS_DIGIT_AHEAD: Final = r"[^\n\d]{0,80}\d"
_ADDRESS_CUE: Final = re.compile(f"{_ADDRESS_CUE_LEAD}(?={_ADDRESS_START})(?={_ADDRESS_DIGIT_AHEAD})")
_ADDRESS_CUE_STARTS: Final = frozenset(("at", "to", "in", "on", "fr", "ad", "Ad", "is", ": ", ":\t"))
# Of those, the cues that come before anything ("The venue is X 87", "New office: X 14"; h18e): after
# them only a street's own shape is evidence (a street word or ending, a house letter, a postcode).
_WEAK_ADDRESS_CUES: Final = frozenset(("is", ": ", ":\t"))
# The cue and the address after it in one scan (``_street_addresses``): ``_STREET_ADDRESS`` read in a
# look-ahead at the cue's end, its groups kept, as group "address".  The look-ahead is optional, so
# the cues found are exactly those of ``_ADDRESS_CUE`` (the tail always matches: no other way through
# the cue is tried), and the address is the one ``_STREET_ADDRESS.match`` reads at the cue's end, or
# None where it reads none.  It saves a call into ``re`` for every cue.
_CUE_STREET: Final = re.compile(f"(?:{_ADDRESS_CUE.pattern})(?:(?=(?P<address>{_STREET_ADDRESS.pattern})))?")
_DIGIT: Final = re.compile(r"\d")
_LEADING_ARTICLE: Final = re.compile(r"(?:der|die|das|den|dem|el|la|le|il|lo|de|het)[ \t]+(?=[^\W\d_])")
_UNIT_GAP: Final = re.compile(r",?[ \t]+(?=\d)")
_HOUSE_LETTER: Final = re.compile(r"\d[a-hA-H]\b|\d/\d")
_YEAR: Final = re.compile(r"(?:19|20)\d\d\b")


# A town, its region and its postcode each on a line of their own under a street line, the layout of
# envelopes and billing forms ("22 Main Street Suite 395⏎Springfield⏎IL⏎62704", "Salto⏎SA⏎50000",
# "ALFRICK⏎⏎WR6 4ZJ"), one blank line allowed between them (issue 16, h22f).  Read from the postcode
# line up: ``_postcode_lines`` takes a town and its postcode on two lines right under a street it knows,
# and left the town, the region and the postcode of this layout readable.
# From the line break before it: ``re`` skips to the breaks (a "^" under re.M is tried everywhere).
_COLUMN_POSTCODE: Final = re.compile(
    rf"\n[ \t>]*(?:{_LINE_POSTCODE}|\d{{3}}[ \t]\d{{2}}|\d{{2}}-\d{{3}})[ \t]*(?=\r?\n|\Z)"
)
_COLUMN_REGION: Final = re.compile(r"[A-Z]{2,3}")
_COLUMN_TOWN: Final = re.compile(rf"[{_UPPER}][\w'’\-]*(?:[ \t]+[{_UPPER}][\w'’\-]*){{0,3}}")
_COLUMN_STREET: Final = re.compile(r"[^\n:@]{0,60}\d[^\n:@]{0,60}")


def _line_above(text: str, start: int) -> tuple[int, int]:
    """The content (after a quoting prefix, without trailing blanks) of the line before the one that
    starts at ``start``, skipping one blank line; (-1, -1) at the text's start."""
    for _ in range(2):
        if start <= 0:
            return -1, -1
        line_start = text.rfind("\n", 0, start - 1) + 1
        prefix = _LINE_PREFIX.match(text, line_start, start - 1)
        content = prefix.end() if prefix is not None else line_start
        end = start - 1
        while end > content and text[end - 1] in " \t\r":
            end -= 1
        if content < end:
            return content, end
        start = line_start
    return -1, -1


def _address_column(text: str, out: list[NameMatch]) -> list[NameMatch]:
    """``out`` with the town, region and postcode lines of an address written as a column, and its
    street line, when a line holding a number stands above the town (``_COLUMN_POSTCODE``)."""
    added: list[NameMatch] = []
    taken: set[int] = set()  # the lines added, by start: parts are whole lines
    index = _spans_index(out)
    for match in _COLUMN_POSTCODE.finditer(text):
        line_start = match.start() + 1
        prefix = _LINE_PREFIX.match(text, line_start, match.end())
        code_end = match.end()
        while text[code_end - 1] in " \t":
            code_end -= 1
        parts = [(prefix.end() if prefix is not None else line_start, code_end)]
        start, end = _line_above(text, line_start)
        region = start >= 0 and _COLUMN_REGION.fullmatch(text, start, end) is not None
        if region:
            parts.append((start, end))
            start, end = _line_above(text, start)
        elif _YEAR_WORD.fullmatch(text, *parts[0]) is not None:
            continue  # "Released⏎2014": a year, not a postcode, unless a region stands above it
        if start < 0 or _COLUMN_TOWN.fullmatch(text, start, end) is None:
            continue
        first = text[start:end].split()[0]
        if _FLAGS.get(first, 0) & _F_STOP and first not in _TOWN_PREFIX_WORDS:
            continue  # "Total⏎12345"
        parts.append((start, end))
        start, end = _line_above(text, start)
        if start < 0 or end - start > 60 or _COLUMN_STREET.fullmatch(text, start, end) is None:
            continue  # no street line above: two or three short lines may be anything
        if len(text[start:end].split()) > 8:
            continue  # a sentence with a number in it
        parts.append((start, end))
        for part_start, part_end in parts:
            if part_start not in taken and not _meets(index, part_start, part_end):
                taken.add(part_start)
                value = text[part_start:part_end]
                added.append(NameMatch("location", part_start, part_end, value, 0.75, "address_column"))
    if not added:
        return out
    return sorted(out + added, key=_start_of)


def _address_lines(text: str) -> list[NameMatch]:
    """The parts of addresses written on lines that end in a "Country postcode" line."""
    out: list[NameMatch] = []
    lines: list[tuple[int, int]] = []  # (start, end) of each line's content, after its prefix
    position = 0
    for line in text.split("\n"):
        prefix = _LINE_PREFIX.match(line)
        skip = prefix.end() if prefix is not None else 0
        lines.append((position + skip, position + len(line.rstrip())))
        position += len(line) + 1
    # The last line with content (asking every line about all the lines after it was quadratic).
    last = max((k for k, (start, end) in enumerate(lines) if start < end), default=-1)
    for k, (start, end) in enumerate(lines):
        country = (
            _COUNTRY_LINE.fullmatch(text, start, end) if _may_end_country_line(text, start, end) else None
        )
        if country is None:
            # "Kisbarát⏎Hungary" closing a text: a country alone on the last line, a town above it.
            if (
                k < 1
                or last > k
                or fold(text[start:end]) not in _REGION_FOLDED
                or not _TOWN_LINE.fullmatch(text, *lines[k - 1])
                or (k >= 2 and lines[k - 2][0] < lines[k - 2][1])  # the town starts its block
            ):
                continue
            out.append(
                NameMatch(
                    "location",
                    lines[k - 1][0],
                    lines[k - 1][1],
                    text[slice(*lines[k - 1])],
                    0.7,
                    "address_lines",
                )
            )
            out.append(NameMatch("location", start, end, text[start:end], 0.7, "address_lines"))
            continue
        if fold(country.group(1)) not in _REGION_FOLDED:
            continue
        parts = [(start, end)]
        town = False
        for j in range(k - 1, max(-1, k - 5), -1):
            line_start, line_end = lines[j]
            if line_start >= line_end:
                continue  # a blank line inside the block
            if _UNIT_LINE.fullmatch(text, line_start, line_end):
                parts.append((line_start, line_end))
            elif not town and _TOWN_LINE.fullmatch(text, line_start, line_end):
                town = True
                parts.append((line_start, line_end))
            elif _STREET_LINE.fullmatch(text, line_start, line_end):
                parts.append((line_start, line_end))
                break
            else:
                break
        if len(parts) < 2:
            continue  # a country and a number alone may be anything ("Windows 11")
        for part_start, part_end in sorted(parts):
            value = text[part_start:part_end]
            out.append(NameMatch("location", part_start, part_end, value, 0.75, "address_lines"))
    return out


# A speaker's label at a line start ("Apollinaris: What a wife."), read as a name when it starts two
# lines or more: a transcript's speakers.  Labels of roles and of forms are no names.
_SPEAKER: Final = re.compile(rf"^[ \t>]*([{_UPPER}][{_LOWER}]+(?:[ \t][{_UPPER}][{_LOWER}]+)?):[ \t]", re.M)
_ROLE_LABELS: Final = _words(
    "User Assistant System Human Ai Bot Input Output Answer Question Example Response Prompt Context "
    "Task Text Query Result Results Summary Title Description Reason Step Solution Explanation Hint "
    "Comment Reply Message Agent Me You Instruction Instructions Rules Rule Goal Role Persona Character "
    "Narrator Interviewer Host Guest Teacher Student Doctor Patient Customer Speaker Source Target Notes "
    "Tip Tips Observation Thought Action Final Tool Function Code Translation Original Label Category "
    "Score Topic Keywords Tags Author Document Email Body Content Feedback Review Rating Premise Hypothesis"
)
# A name alone on the first line of a text whose next lines hold an address or phone numbers: a
# signature or an address block ("Csanád Gere⏎Sanders, Grant and Warner⏎254 Damvergi Street, ...").
_NAME_LINE: Final = re.compile(
    rf"[{_UPPER}][{_LOWER}]+(?:[ \t](?:(?:van|von|de|der|den|del|della|di|da|du|dos|das|ter|ten)[ \t]){{0,2}}"
    rf"(?:[{_UPPER}]\.|[{_UPPER}][{_LOWER}]+(?:-[{_UPPER}][{_LOWER}]+)?)){{1,3}}"
)
# The last line of a short address block: a listed country, a postcode after it allowed ("Ferko
# Takáts⏎⏎Montbovon⏎Switzerland", "...⏎Portugal 8100-743"; h23g).
_LAST_LINE: Final = re.compile(r"\n[ \t>]*([^\W\d_][^\n\d]{2,40}?)[ \t]*(?:[\d\-]{3,9})?[ \t]*\Z")
_LEADING_BLANK_LINES: Final = re.compile(r"(?:[ \t>?]*+\r?\n)*+[ \t>?]*+")
_ADDRESSEE_LABEL: Final = re.compile(
    r"(?:[Aa]ddress|ADDRESS|[Ss]hip[ \t]to|SHIP[ \t]TO|[Bb]ill[ \t]to|BILL[ \t]TO|[Dd]eliver[ \t]to|"
    r"[Rr]ecipient)[ \t]*\Z"
)
_BLANKS_AFTER_COLON: Final = re.compile(r"[ \t]*")
_NUMBER_LINE: Final = re.compile(r"\n[ \t>]*(?:\d|[^\n]*\d{3})")
_UNLISTED_EVIDENCE: Final = frozenset(
    (
        "middle_initial",
        "surname_shape",
        "possessive",
        "person_verb_pronoun",
        "speaker",
        "signature",
        "people_list",
        "pair_subject",
    )
)
# People named together (issue 16, h17d): a list after a word for a group of people ("Attendees: Ana
# Reumer, Ilse Kruglova and Tom Hale", "our 3 founders: Langset, Okafor and Brandt"), and two names that
# open a sentence as the subject of a verb of people ("Reumer and Kruglova were precision engineers").
# No list needs to hold the names: the group word or the verb says what they are.
_GROUP_NAME: Final = rf"[{_UPPER}][{_LOWER}'’\-]+(?:[ \t][{_UPPER}][{_LOWER}'’\-]+){{0,2}}"
# Read from each colon: the word for people in the 40 characters before it (lower-cased), the list
# after it.  A case-insensitive scan of the whole text for the words cost a third of the names pass on
# a 200,000-character document.
_PEOPLE_WORD: Final = re.compile(
    r"\b(?:attendees|participants|(?:co-?)?founders|members|guests|speakers|invitees|present|cc|"
    r"children|kids|sons|daughters|siblings|brothers|sisters|authors|organi[sz]ers|panel+ists|"
    r"witnesses|signatories|owners|partners|friends|colleagues|players|students|employees|winners|"
    r"nominees|hosts|judges|people|team|staff|parents|grandchildren|cousins)\b[^\n:]{0,20}$"
)
_PEOPLE_LIST: Final = re.compile(
    rf"[ \t]*({_GROUP_NAME}(?:[ \t]*,[ \t]*{_GROUP_NAME}){{0,20}},?[ \t]+(?:and|&)[ \t]+{_GROUP_NAME})"
)
_PAIR_SUBJECT: Final = re.compile(
    # A capital first (``re`` skips to the capitals), then what stands before it: a line's start or a
    # sentence's end.
    rf"([{_UPPER}](?:(?<![^\n].)|(?<=[.!?][ \t].))[{_LOWER}'’\-]+(?:[ \t][{_UPPER}][{_LOWER}'’\-]+){{0,2}})"
    rf"[ \t]+and[ \t]+({_GROUP_NAME})[ \t]+"
    r"(?:were|are|have|had|both|met|became|went|agreed|founded|started|married|lived|live|worked|work)\b"
)
_GROUP_SPLIT: Final = re.compile(rf"{_GROUP_NAME}")
# Two single capitalised words joined by "and", neither part of a longer run of capitalised words nor of
# a case's name (h24f): two people's first names when both are listed (``_first_name_pair``).  Not "&":
# firms and citations join surnames so ("Dawson & Reid, 1997"), people in prose seldom.
_FIRST_NAME_PAIR: Final = re.compile(
    # The capital first, then what stands before it (``re`` skips to the capitals, as in ``_PAIR_SUBJECT``).
    rf"([{_UPPER}](?<![\w'’\-.].)[{_LOWER}'’\-]+)[ \t]+and[ \t]+"
    rf"([{_UPPER}][{_LOWER}'’\-]+)(?![\w'’\-]|[ \t][{_UPPER}]|[ \t]v[s]?\.)"
)
# Words that end like English nouns, not names: "Marketing and Development were merged".
_NOUN_ENDING: Final = ("ing", "tion", "sion", "ment", "ness", "ity", "ics", "ance", "ence", "ism", "ogy")


# The labels of a postcode, lower-cased.  ``_POSTCODE_LABEL`` is built from them (each written
# lower-case, capitalised or all capitals, a space as a space or a tab), ``find_names`` runs it only where
# the first word of one stands in one of those forms, and ``may_find`` (the skip of ``pii.detect_pii``)
# looks for that word in the lower-cased text: one list, so the skip cannot drift from the pass.
POSTCODE_LABELS: Final = ("zip", "postcode", "postal code")
_POSTCODE_FIRST: Final = tuple(label.split()[0] for label in POSTCODE_LABELS)
_POSTCODE_FORMS: Final = tuple(f for w in _POSTCODE_FIRST for f in (w, w.capitalize(), w.upper()))


def _label_forms(label: str) -> str:
    """``label`` as the pattern reads it: "postal code" gives "[Pp]ostal[ \\t]code|POSTAL[ \\t]CODE"."""
    written = rf"[{label[0].upper()}{label[0]}]{label[1:]}".replace(" ", r"[ \t]")
    return written + "|" + label.upper().replace(" ", r"[ \t]")


# A postcode after its label ("ZIP: 42158", "My zip code is 4620-428"): alone, a number like any other.
_POSTCODE_LABEL: Final = re.compile(
    "(?:" + "|".join(_label_forms(label) for label in POSTCODE_LABELS) + ")"
    r"(?:[ \t]code)?(?:[ \t]+is)?[ \t]*:?[ \t]*"
    r"(\d{3,5}(?:[ \-]\d{2,4})?|[A-Z]{1,2}\d[A-Z\d]?[ \t]?\d[A-Z]{2}|[A-Z]\d[A-Z][ \t]?\d[A-Z]\d)(?![\w\-])"
)


def _postcodes(text: str, out: list[NameMatch]) -> list[NameMatch]:
    """``out`` with the postcodes written after their label (issue 16, fourth pass)."""
    added = [
        NameMatch("location", m.start(1), m.end(1), m.group(1), 0.75, "postcode_label")
        for m in _POSTCODE_LABEL.finditer(text)
        if not any(o.start < m.end(1) and m.start(1) < o.end for o in out)
    ]
    return sorted(out + added, key=lambda m: m.start) if added else out


# A town with its postcode after a place's preposition (h25g): "to support Clay-Pacheco in Linwood 8011
# in its mission", "the office in Börfink 54422.".  One to three capitalised words, none a stop or
# numbered thing ("in Room 1234", "on Port 8080", "from Nokia 3310"), then four or five digits that are
# no year and end the clause (the look-ahead of ``_NUMBER_TAIL``).  Listed or not: the postcode decides.
_CODED_TOWN: Final = re.compile(
    rf"(?<![\w\-])(?:in|to|from|at|near)[ \t]+"
    rf"([{_UPPER}][{_LOWER}'’\-]+(?:[ \t][{_UPPER}][{_LOWER}'’\-]+){{0,2}})[ \t](\d{{4,5}})"
    r"(?=[.,;:!?)]|[ \t]+(?:in|at|on|for|by|and|is|was)\b|[ \t]*(?:\n|\Z))"
)
# The same, postcode first ("ship it to 11253-0218 Nueva Uganda by Thursday", "moved to 4021 Linwood in
# March"): four or five digits (a ZIP+4 too) that are no year, then one to three capitalised words that
# end the clause.
_CODE_TOWN: Final = re.compile(
    r"(?<![\w\-])(?:in|to|from|at|near)[ \t]+(\d{4,5}(?:-\d{4})?)[ \t]"
    rf"([{_UPPER}][{_LOWER}'’\-]+(?:[ \t][{_UPPER}][{_LOWER}'’\-]+){{0,2}})"
    r"(?=[.,;:!?)]|[ \t]+(?:in|at|on|for|by|and|is|was|before|until|next|last|this)\b|[ \t]*(?:\n|\Z))"
)
# A Hungarian street by its type and house number, with no cue (h25g): "Dózsa györgy utca 29.", "Petőfi
# Sándor tér 225.", "Kaposvári utca 36., H-8493 Békéscsaba", "Piroska u. 76., Pellérd, 7831": with the
# postcode and town, or town and postcode, after it.
# The types are Hungarian words no other language writes so; ``_HU_TYPE_GATE`` reads the same list.
_HU_TYPES: Final = r"(?:utca|u\.|út|útja|tér|tere|körút|krt\.|köz|sétány|fasor|rakpart|dűlő|lépcső)"
_HU_STREET: Final = re.compile(
    rf"(?<![\w\-])[{_UPPER}][{_LOWER}]+(?:[ \t][{_UPPER}{_LOWER}][{_LOWER}]+)?[ \t]"
    rf"{_HU_TYPES}[ \t]"
    r"\d{1,4}(?:/[A-Za-z])?(?![\w\-])"
    rf"(?:\.?,[ \t](?:(?:H-)?\d{{4}}[ \t][{_UPPER}][{_LOWER}]+(?![\w\-])"
    rf"|[{_UPPER}][{_LOWER}]+,[ \t]\d{{4}}(?![\w\-])))?"
)
# What every match of ``_CODED_TOWN``/``_CODE_TOWN`` and of ``_HU_STREET`` holds: gates that ``re`` runs
# fast (a leading class or literal lets it skip ahead), so the full patterns run only on texts that may match.
_FOUR_DIGITS: Final = re.compile(r"\d{4}")
_HU_TYPE_GATE: Final = re.compile(rf"[ \t]{_HU_TYPES}[ \t]\d")
# Capitalised words that come before a number and name no town (h25g).
_NUMBERED: Final = _words(
    "Port Gate Terminal Flight Build Line Row Column Lot Block Level Bus Train Tram Platform Bay Dock Pier "
    "Channel Exit Server Node Host Store Branch Batch Sprint Phase Stage Round Page Lab Ward Zone Sector "
    "Area Room Suite Unit Ticket Case Claim Policy Account Invoice Order Item Model Series Patch Rev "
    "Revision Edition Volume Vol Episode Season Track Part Article Rule Clause Form Code Error Test Run Job "
    "Task Step Stack Cluster Region Pool Slot Rack Shelf Aisle Seat Car Coach Cabin Deck Hall Wing Tower "
    "Kernel Firmware Android Windows Office Excel Word Ubuntu Debian Fedora Iphone Galaxy Pixel Nokia "
    "Intel Ryzen Xeon Core Cortex Snapdragon Radeon Geforce Rtx Gtx Playstation Xbox Boeing Airbus"
)


# A place written in Greek letters after a strong place cue (h25g): "My friend lives in ΛΕΥΚΩΣΙΑ", "the
# north side of Μεγάλη Άμμος 203".  The tokens read Latin letters only.
_GREEK_LETTER: Final = re.compile(r"[Ά-ώ]")
_GREEK_PLACE: Final = re.compile(
    r"(?<![\w\-])[ΆΈ-ΏΑ-Ω][Ά-ώ]+(?:[ \t][ΆΈ-ΏΑ-Ω][Ά-ώ]+){0,3}(?:[ \t]\d{1,4})?(?![\w\-])"
)


def _greek_places(text: str, out: list[NameMatch]) -> list[NameMatch]:
    """``out`` with the places in Greek letters after a strong place cue (h25g)."""
    added: list[NameMatch] = []
    index = _spans_index(out)
    for match in _GREEK_PLACE.finditer(text):
        start, end = match.span()
        if _meets(index, start, end):
            continue
        before = _Before(text, start)
        cue = before.cue(_STRONG_PLACE_CUES)
        if cue and (before.colon or cue not in _LABEL_PLACE_CUES) and _postal_address_cue(before, cue):
            added.append(NameMatch("location", start, end, match.group(), 0.7, "strong_place_cue"))
    return sorted(out + added, key=_start_of) if added else out


def _coded_town(town: str, code: str) -> bool:
    """Whether ``town`` and ``code`` are a town and its postcode: a code that is no year, no word of the
    town a stop, an organisation's or a numbered thing's word (a compass point or "New" may start it)."""
    if _YEAR_WORD.fullmatch(code) is not None:
        return False
    words = town.split()
    for k, word in enumerate(words):
        if k == 0 and word in _TOWN_PREFIX_WORDS and len(words) > 1:
            continue
        if word in _STOP or word in _NUMBERED or _FLAGS.get(word, 0) & (_F_STOP | _F_ORG):
            return False
    return True


def _coded_towns(text: str, out: list[NameMatch]) -> list[NameMatch]:
    """``out`` with the towns written with their postcode after "in", "to", "from", "at", "near", the
    postcode before or after the town (h25g).

    A person or a place read inside the span ("in Linwood": a first name) gives way to the whole.
    """
    added: list[NameMatch] = []
    spans: list[tuple[int, int]] = []
    # Both need four digits in a row: most texts have none, and the two patterns, led by a look-behind,
    # are tried at every position where ``re`` cannot skip ahead (the lead, after a compiled count).
    coded = _FOUR_DIGITS.search(text) is not None
    for match in _CODED_TOWN.finditer(text) if coded else ():
        if _coded_town(match.group(1), match.group(2)):
            spans.append((match.start(1), match.end(2)))
    for match in _CODE_TOWN.finditer(text) if coded else ():
        town = match.group(2)
        last = town.rsplit(None, 1)[-1]
        if (
            _coded_town(town, match.group(1))
            # A count of things ("to 2500 Employees", "from 12000 Feet"): an unlisted word alone, or an
            # unlisted plural last, is no town after a number.
            and (last != town or _FLAGS.get(last, 0) != 0 or not last.isascii())
            and not (_FLAGS.get(last, 0) == 0 and last.endswith("s") and last.isascii())
        ):
            spans.append((match.start(1), match.end(2)))
    if _HU_TYPE_GATE.search(text) is not None:
        for match in _HU_STREET.finditer(text):
            spans.append((match.start(), match.end()))
    if not spans:
        return out
    ordered = sorted(out, key=_start_of)
    starts, reach = _spans_index(ordered)
    dropped: set[int] = set()
    for start, end in sorted(spans):
        first = bisect.bisect_left(starts, start)
        last = bisect.bisect_left(starts, end, first)
        if (first > 0 and reach[first - 1] > start) or any(ordered[k].end > end for k in range(first, last)):
            continue  # a name or a place that reaches out of the span decided first
        dropped.update(range(first, last))
        added.append(NameMatch("location", start, end, text[start:end], 0.7, "town_postcode"))
    if not added:
        return out
    kept = [m for k, m in enumerate(ordered) if k not in dropped]
    return sorted(kept + added, key=_start_of)


# A name addressed or listed with no cue word (issue 16, fifth pass): one capitalised word between a
# comma and the end of a sentence or a comma before lower-case words ("Don't be late, Gunnarsen!",
# "Sorry for the delay, Ingrid, the parcel ..."), and the words of a list after a colon ("the
# founders: Brandt, Ohlsen and Brandt").  Only listed first names and surnames count there.
_VOCATIVE: Final = re.compile(
    rf",[ \t]+([{_UPPER}][{_LOWER}'’\-]+)(?=[ \t]*(?:[!?]|\.(?:\s|$)|,[ \t]+[a-z]|$))"
)
_COLON_LIST: Final = re.compile(
    rf":[ \t]+((?:[{_UPPER}][{_LOWER}'’\-]+,[ \t]+)+(?:[{_UPPER}][{_LOWER}'’\-]+,?[ \t]+)?and[ \t]+"
    rf"[{_UPPER}][{_LOWER}'’\-]+)(?=[ \t]*[.!?;,]|[ \t]*$)"
)
# A list of surnames alone is as often a firm's name ("Rojas, Schmidt and Holden"): it names people
# after a word for people ("the founders: ...") or when a first name is in it.
_PEOPLE_NOUNS: Final = _words(
    "founders founder members attendees participants guests speakers authors winners children kids sons "
    "daughters parents siblings brothers sisters friends colleagues partners employees staff players "
    "witnesses suspects victims patients students teachers owners tenants people persons names"
)
_LIST_WORD: Final = re.compile(rf"[{_UPPER}][{_LOWER}'’\-]+")


def _listed_name(word: str) -> bool:
    """A listed first name or surname that is no stop, place, organisation or ambiguous word."""
    flags = _FLAGS.get(word, 0)
    return bool(flags & (_F_FIRST | _F_SURNAME)) and not flags & (_F_STOP | _F_PLACE | _F_ORG | _F_AMBIGUOUS)


def _addressed(text: str, out: list[NameMatch]) -> list[NameMatch]:
    """``out`` with names addressed after a comma and names listed after a colon (fifth pass)."""
    spans: list[tuple[int, int, str]] = []
    for match in _VOCATIVE.finditer(text):
        if _listed_name(match.group(1)):
            spans.append((match.start(1), match.end(1), "vocative"))
    if ":" in text:
        for match in _COLON_LIST.finditer(text):
            words = list(_LIST_WORD.finditer(text, match.start(1), match.end(1)))
            if all(_listed_name(w.group()) for w in words) and (
                any(_FLAGS.get(w.group(), 0) & _F_FIRST for w in words)
                or _last_word(text, match.start()) in _PEOPLE_NOUNS
            ):
                # A word of the list may be addressed too ("guests: Ingrid, Harald, and Sven"): once.
                taken = {(start, end) for start, end, _ in spans}
                spans.extend((w.start(), w.end(), "colon_list") for w in words if w.span() not in taken)
    added = [
        NameMatch("person", start, end, text[start:end], 0.7, evidence)
        for start, end, evidence in spans
        if not any(m.start < end and start < m.end for m in out)
    ]
    return sorted(out + added, key=lambda m: m.start) if added else out


def _named(match: NameMatch) -> bool:
    """Whether a person match starts with a listed first name or was read by this pass's evidence."""
    if match.evidence in _UNLISTED_EVIDENCE:
        return True
    # A listed first name starts it ("Natsuhiko Ogino"); a listed surname alone is not enough: a
    # run after a weak cue may hold one by chance ("simulate Developer Mode").
    return _FLAGS.get(match.value.split()[0], 0) & (_F_FIRST | _F_AMBIGUOUS) == _F_FIRST


# A capitalised word right before or after a mention: it is part of a longer name ("West Virginia",
# "Memorial Stadium"), which is not the value found.
_ADJACENT_BEFORE: Final = re.compile(rf"[{_UPPER}][\w'’\-]*[ \t]$")
_ADJACENT_AFTER: Final = re.compile(rf"[ \t][{_UPPER}]")


def _other_mentions(text: str, out: list[NameMatch]) -> list[NameMatch]:
    """``out`` with every other mention of a name or place found, written the same (fourth pass).

    A redactor that hides "Natsuhiko Ogino" once and leaves it readable the second time leaks it: the
    second mention may have no cue ("... in Toftlund, ... to Toftlund to share").
    """
    added: list[NameMatch] = []
    # A person's name read from a list or from the evidence of this pass: a run that stood after a
    # strong cue with no listed word in it ("simulate Developer Mode") is not repeated elsewhere.
    values = {m.value: m for m in out if len(m.value) > 2 and (m.type != "person" or _named(m))}
    # The characters a match covers, marked once (made on the first value that occurs twice): asking
    # every match of ``out`` and ``added`` about each mention made a long list of one name quadratic.
    covered: bytearray | None = None
    for value, first in values.items():
        if text.count(value) < 2:
            continue  # most values occur once
        if covered is None:
            covered = bytearray(len(text))
            for m in out:
                covered[m.start : m.end] = b"\x01" * (m.end - m.start)
        at = text.find(value)
        while at >= 0:
            after = at + len(value)
            if (
                not (at > 0 and (text[at - 1].isalnum() or text[at - 1] in "-'’"))
                and not (after < len(text) and text[after].isalnum())
                and not _ADJACENT_BEFORE.search(text, max(0, at - 30), at)
                and not _ADJACENT_AFTER.match(text, after)  # a word of a longer run: "West Virginia"
                and covered.find(1, at, after) < 0
            ):
                added.append(NameMatch(first.type, at, after, value, first.confidence, "same_value"))
                covered[at:after] = b"\x01" * (after - at)
            at = text.find(value, after)
    return sorted(out + added, key=lambda m: m.start) if added else out


def _line_people(text: str, out: list[NameMatch]) -> list[NameMatch]:
    """``out`` with the speakers of a transcript and the name line of an address block (fourth pass)."""
    added: list[NameMatch] = []
    # Speakers are read where two labels or more stand, each with its colon: a text with one colon at
    # most has none, and ``_SPEAKER`` (a line start in multi-line mode, tried at every position) is not
    # run there (h22e).
    labels = _SPEAKER.findall(text) if text.count(":") > 1 else []
    if len(labels) > 1:
        # Counted once: ``labels.count`` per line made a long transcript quadratic.
        seen: dict[str, int] = {}
        for label in labels:
            seen[label] = seen.get(label, 0) + 1
        for match in _SPEAKER.finditer(text):
            label = match.group(1)
            if label not in _ROLE_LABELS and _speaker_name(label, seen[label] > 1):
                added.append(NameMatch("person", match.start(1), match.end(1), label, 0.7, "speaker"))
    # The first line with content: a quoted e-mail often opens with an empty quoted line ("> ⏎> Name").
    prefix = _LEADING_BLANK_LINES.match(text)
    start = prefix.end() if prefix is not None else 0
    line = _NAME_LINE.match(text, start)
    if (
        line is not None
        and text.startswith("\n", line.end())
        and (
            _NUMBER_LINE.search(text, line.end(), line.end() + 200) is not None
            or _ends_in_country(text, line.end())
        )
        and _plain_words([w for w in line.group().split() if w not in _PARTICLES])
    ):
        added.append(NameMatch("person", start, line.end(), line.group(), 0.75, "signature"))
    # The addressee on an address's label line, above the address's lines (h22f): "Billing address:
    # Kaua Lima⏎    194 Guipúzcoa 6508 Apt. 889⏎...", "Ship to: Olu Adeyemi⏎12 ...".
    # Read from each colon back (a scan of the whole text for the labels cost more than the pass).
    colon = text.find(":")
    while colon >= 0:
        label = _ADDRESSEE_LABEL.search(text, max(0, colon - 16), colon)
        line = None
        if label is not None:
            gap = _BLANKS_AFTER_COLON.match(text, colon + 1)
            line = _NAME_LINE.match(text, gap.end() if gap is not None else colon + 1)
        colon = text.find(":", colon + 1)
        if (
            line is not None
            and text.startswith("\n", line.end())
            and _NUMBER_LINE.match(text, line.end()) is not None
            and _plain_words(line.group().split())
        ):
            # A street on the label's line is the address's first line ("Return address: Aleea Voinea").
            kind = "location" if _street_named(text, line.group().split(), line.start()) else "person"
            evidence = "street_name" if kind == "location" else "addressee"
            added.append(NameMatch(kind, line.start(), line.end(), line.group(), 0.75, evidence))
    if not added:
        return out
    # One bisection per span of ``out``: a scan of ``added`` for each made a text of many labelled
    # address blocks or speakers quadratic.
    in_added = _spans_index(added)
    kept = [m for m in out if not _meets(in_added, m.start, m.end)]
    return sorted(kept + added, key=lambda m: m.start)


def _ends_in_country(text: str, start: int) -> bool:
    """Whether ``text`` from ``start`` is a short address block (six lines at most) whose last line is a
    listed country (a postcode after it allowed)."""
    if len(text) - start > 240 or text.count("\n", start) > 6:
        return False
    last = _LAST_LINE.search(text, start)
    return last is not None and last.group(1) in _REGION


def _speaker_name(label: str, repeated: bool) -> bool:
    """Whether a transcript's line label names a speaker.  A label that recurs is one when its words may
    be a person's name, even where they also name a place: a town does not speak ("Regina: ...").  A
    label met once is one when it is a listed first name ("Maria: hi" in a chat of several speakers).
    """
    words = label.split()
    if any(_FLAGS.get(word, 0) & (_F_STOP | _F_ORG | _F_REGION) for word in words):
        return False
    if _FLAGS.get(words[0], 0) & _F_FIRST:
        return True
    return repeated and _plain_words(words)


def _group_member(value: str) -> bool:
    """Whether one item of a group of people may be a person's name: no stop, organisation or region
    word, no listed place that is no name, no English noun's ending, no plural of an unlisted word."""
    words = value.split()
    for word in words:
        flags = _FLAGS.get(fold(word) if not word.isascii() else word, 0)
        if flags & (_F_STOP | _F_ORG | _F_REGION) or word in _ROLE_LABELS:
            return False
        if flags & (_F_PLACE | _F_FIRST | _F_SURNAME) == _F_PLACE:
            return False
        if not flags & (_F_FIRST | _F_SURNAME) and (
            word.endswith(_NOUN_ENDING) or (word.endswith("s") and not word.endswith("ss"))
        ):
            return False
    return True


def _first_name_pair(first: str, second: str) -> bool:
    """Whether two words joined by "and" are two people's first names (h24f): both listed first names,
    neither a stop, organisation or region word, and one of them neither an English word nor a town's
    name ("Both Michael and Elizabeth signed", not "Sydney and Mark" nor "Crystal and Grant")."""
    if first == second:
        return False  # "Johnson & Johnson": a firm
    clean = False
    for word in (first, second):
        flags = _FLAGS.get(fold(word) if not word.isascii() else word, 0)
        if not flags & _F_FIRST or flags & (_F_STOP | _F_ORG | _F_REGION):
            return False
        if not flags & (_F_AMBIGUOUS | _F_PLACE):
            clean = True
    return clean


def _capitalised_before(text: str, start: int) -> bool:
    """Whether a capitalised word that is no stop word ends right before ``start``, across blanks: then
    the word at ``start`` ends a longer name ("Port Elizabeth and ...", "Anna Maria and ...")."""
    end = start
    while end > 0 and text[end - 1] in " \t":
        end -= 1
    if end > 0 and text[end - 1] == ",":
        # "Lee, Sanders and Tran": the last of a list of surnames, a firm's name as often as not (a
        # list of people is ``_list_siblings``'s).
        return end - 1 > 0 and text[end - 2].isalpha() and _capitalised_word_before(text, end - 1)
    if end > 1 and text[end - 1] == "." and text[end - 2].isupper():
        return True  # "T. Rex and Sky": an initial before
    return _capitalised_word_before(text, end) and end < start


def _capitalised_word_before(text: str, end: int) -> bool:
    """Whether the word ending at ``end`` is capitalised, no stop word, and not a sentence's first word
    that no list holds."""
    begin = end
    while begin > 0 and (text[begin - 1].isalpha() or text[begin - 1] in "'’-"):
        begin -= 1
    word = text[begin:end]
    if begin == end or not word[0].isupper():
        return False
    flags = _FLAGS.get(fold(word) if not word.isascii() else word, 0)
    if flags & _F_STOP:
        return False
    # A sentence's first word no list holds is an ordinary word ("Both Michael and Elizabeth signed").
    at = begin
    while at > 0 and text[at - 1] in " \t":
        at -= 1
    opens = at == 0 or text[at - 1] in ".!?\n"
    return not opens or bool(flags & (_F_FIRST | _F_SURNAME | _F_PLACE | _F_PREFIX))


def _grouped_people(text: str, out: list[NameMatch]) -> list[NameMatch]:
    """``out`` with the people named in a group (``_PEOPLE_LIST``, ``_PAIR_SUBJECT``) not found yet."""
    spans: list[tuple[int, int, str]] = []
    colon = text.find(":")
    while colon >= 0:
        match = _PEOPLE_LIST.match(text, colon + 1)
        if match is not None and _PEOPLE_WORD.search(lower(text[max(0, colon - 40) : colon])) is not None:
            items = list(_GROUP_SPLIT.finditer(text, match.start(1), match.end(1)))
            if all(_group_member(item.group()) for item in items):
                spans.extend((item.start(), item.end(), "people_list") for item in items)
        colon = text.find(":", colon + 1)
    for match in _PAIR_SUBJECT.finditer(text):
        if _group_member(match.group(1)) and _group_member(match.group(2)):
            spans.extend((match.start(g), match.end(g), "pair_subject") for g in (1, 2))
    for match in _FIRST_NAME_PAIR.finditer(text):
        if _first_name_pair(match.group(1), match.group(2)) and not _capitalised_before(text, match.start()):
            spans.extend((match.start(g), match.end(g), "first_name_pair") for g in (1, 2))
    added = [
        NameMatch("person", start, end, text[start:end], 0.7, evidence)
        for start, end, evidence in spans
        if not any(m.start < end and start < m.end for m in out)
    ]
    return sorted(out + added, key=lambda m: m.start) if added else out


# Lists and tables (h23g): the cells of a line split at one delimiter, or an item after a bullet.
_CELL_DELIMITERS: Final = ",;|\t"
_CELL_ENDS: Final = frozenset(",;|\t\r\n")
_CELL_STARTS: Final = frozenset(",;|\t\n:-*•>")
_BULLET: Final = re.compile(r"[ \t]*(?:[-*•>][ \t]+|\d{1,3}[.)][ \t]+)")
# A label before a cell's value ("Attendees: ", "reviewer: "): a few words and a colon.
_CELL_LABEL: Final = re.compile(r"[ \t]*[^\W\d][\w \t'’\-]{0,30}:[ \t]*")
_SIBLING_WORD: Final = re.compile(rf"[{_UPPER}][{_LOWER}'’\-]+")


def _cell_value(text: str, start: int, end: int) -> tuple[int, int]:
    """The value of the cell ``text[start:end]``: without blanks, a bullet or a label before it."""
    bullet = _BULLET.match(text, start, end)
    if bullet is not None:
        start = bullet.end()
    label = _CELL_LABEL.match(text, start, end)
    if label is not None:
        start = label.end()
    while start < end and text[start] in " \t":
        start += 1
    while end > start and text[end - 1] in " \t.":
        end -= 1
    return start, end


def _line_cells(text: str, start: int, end: int, delimiter: str) -> list[tuple[int, int]]:
    """The cells of the line ``text[start:end]`` split at ``delimiter`` (a table's outer bars dropped)."""
    cells: list[tuple[int, int]] = []
    at = start
    while True:
        cut = text.find(delimiter, at, end)
        cells.append((at, end if cut < 0 else cut))
        if cut < 0:
            break
        at = cut + 1
    if delimiter == "|" and len(cells) > 2:
        cells = cells[1:-1] if not text[cells[0][0] : cells[0][1]].strip() else cells
    return cells


def _sibling_name(value: str) -> bool:
    """Whether a list's or a column's item may be a person's name beside a person found in it: one to
    four capitalised words (particles between), none a stop, organisation or region word unless a
    listed first name ("April Ross"), no listed place, no place's name last, and a listed first name first or
    a listed surname last (one word: a listed first name that is no word)."""
    words = value.split()
    if not words or len(words) > 4 or lower(words[-1]) in _STREET_TYPES:
        return False  # "Barlow Park", "Beacon Hill": a place named after a person
    flags: list[int] = []
    for n, word in enumerate(words):
        if 0 < n < len(words) - 1 and word in _PARTICLES:
            flags.append(0)
            continue
        if _SIBLING_WORD.fullmatch(word) is None or word.endswith(("'s", "’s")):
            return False
        f = _FLAGS.get(word if word.isascii() else fold(word), 0)
        if f & (_F_ORG | _F_REGION) or (f & _F_STOP and not f & _F_FIRST):
            return False
        if word in _ROLE_LABELS or (
            f & (_F_PLACE | _F_FIRST | _F_SURNAME) == _F_PLACE and n == len(words) - 1
        ):
            return False  # a town's name may start a name ("Isabela Gallegos"), not end one
        if not f & (_F_FIRST | _F_SURNAME) and word.endswith(_NOUN_ENDING):
            return False
        flags.append(f)
    if len(words) == 1:
        return flags[0] & (_F_FIRST | _F_AMBIGUOUS | _F_STOP) == _F_FIRST
    if value in _PLACE_FOLDED or fold(value) in _PLACE_FOLDED:
        return False  # "Santa Clara"
    return bool(flags[0] & _F_FIRST or flags[-1] & _F_SURNAME)


# The evidence too weak for a person to make the other items of its list people.
_WEAK_PERSON_EVIDENCE: Final = frozenset(("ambiguous_first_name+surname", "list_sibling"))


def _list_siblings(text: str, out: list[NameMatch]) -> list[NameMatch]:
    """``out`` with the other items of a list or a table column where most items are people already.

    A person filling a cell of a line split at commas, semicolons, bars or tabs stands in a group: the
    same cell of the lines around it with as many cells (a table's column), or where there are none the
    line's cells (a list: a table's row is a record of a person, a town, an e-mail); an item after a
    bullet, in the items of the bullets around it.  Where people found already fill most of a group's
    capitalised cells (or one of two), its other cells that look like names (``_sibling_name``) are
    people too: "Attendees: April Ross, Tamara Kelley", "| 2 | Margarita Otero | pending |", "- Mati
    Erik⏎- Mihkel Rand".  A column of stadiums or songs with one person in it stays as it was.
    """
    # A cell ends at a delimiter, a line's end or the text's: most people in prose go on with a word
    # ("Anna Weber said ...") and are settled by one look at the character after.
    size = len(text)
    cells_of_people: list[NameMatch] = []
    for match in out:
        if match.type == "person" and match.evidence not in _WEAK_PERSON_EVIDENCE:
            after = match.end
            while after < size and text[after] in " .":
                after += 1
            if after < size and text[after] not in _CELL_ENDS:
                continue
            # And begins after one, a label's colon, a bullet or the line's start.
            before = match.start - 1
            while before >= 0 and text[before] in " \t":
                before -= 1
            if (
                before < 0
                or text[before] in _CELL_STARTS
                or (text[before] in ".)" and before > 0 and text[before - 1].isdigit())
            ):
                cells_of_people.append(match)
    if not cells_of_people:
        return out
    people = {(m.start, m.end) for m in out if m.type == "person" and m.evidence not in _WEAK_PERSON_EVIDENCE}
    groups: list[list[tuple[int, int]]] = []
    seen_lines: set[tuple[int, str]] = set()
    # The rows of each column and the bullet lines already read: each is read once, so a table of many
    # people costs a pass over its rows, not one per person.
    seen_rows: set[tuple[int, str, int]] = set()
    seen_bullets: set[int] = set()
    # Each line's end and cells are read once (a text of one long line of names would read them for
    # every name), and the line's start is carried forward (``out`` is ordered by start).
    line_start = scanned = 0
    line_ends: dict[int, int] = {}
    parsed: dict[tuple[int, str], tuple[list[tuple[int, int]], dict[tuple[int, int], int]]] = {}
    for match in cells_of_people:
        newline = text.rfind("\n", scanned, match.start)
        if newline >= 0:
            line_start = newline + 1
        scanned = match.start
        line_end = line_ends.get(line_start, -1)
        if line_end < 0:
            line_end = text.find("\n", match.end)
            line_end = line_ends[line_start] = size if line_end < 0 else line_end
        for delimiter in _CELL_DELIMITERS:
            known = parsed.get((line_start, delimiter))
            if known is None:
                if text.find(delimiter, line_start, line_end) < 0:
                    known = ([], {})
                else:
                    line_values = [
                        _cell_value(text, a, b) for a, b in _line_cells(text, line_start, line_end, delimiter)
                    ]
                    known = (line_values, {value: k for k, value in enumerate(line_values)})
                parsed[(line_start, delimiter)] = known
            values, where = known
            column = where.get((match.start, match.end), -1)
            if column < 0:
                continue
            cells = values
            if (line_start, delimiter, column) in seen_rows:
                break
            seen_rows.add((line_start, delimiter, column))
            rows = [values[column]]
            for step in (-1, 1):
                for at, to in _lines_beside(text, line_start, line_end, step):
                    row = _line_cells(text, at, to, delimiter)
                    if len(row) != len(cells):
                        break
                    seen_rows.add((at, delimiter, column))
                    rows.append(_cell_value(text, *row[column]))
            if len(rows) > 1:
                groups.append(rows)  # a table's row holds a record, not a list: its column is the group
            elif (line_start, delimiter) not in seen_lines:
                seen_lines.add((line_start, delimiter))
                groups.append(values)
            break
        else:
            bullet = _BULLET.match(text, line_start, match.start)
            if (
                bullet is None
                or line_start in seen_bullets
                or _cell_value(text, line_start, line_end) != (match.start, match.end)
            ):
                continue
            seen_bullets.add(line_start)
            mark = text[line_start : bullet.end()].strip()[:1]
            items = [(match.start, match.end)]
            for step in (-1, 1):
                for at, to in _lines_beside(text, line_start, line_end, step):
                    item = _BULLET.match(text, at, to)
                    if item is None or text[at : item.end()].strip()[:1] != mark:
                        break
                    seen_bullets.add(at)
                    items.append(_cell_value(text, at, to))
            groups.append(items)
    added: list[NameMatch] = []
    index = _spans_index(out)
    taken: set[tuple[int, int]] = set()
    for group in groups:
        # Cells that may hold a name (not a header's "name", a number or an empty cell).
        filled = [(a, b) for a, b in set(group) if a < b and text[a].isupper()]
        found = sum(1 for cell in filled if cell in people)
        if 2 * found <= len(filled) and not (found == 1 and len(filled) == 2):
            continue
        for start, end in sorted(filled):
            if (start, end) in taken or _meets(index, start, end):
                continue
            if _sibling_name(text[start:end]):
                taken.add((start, end))
                added.append(NameMatch("person", start, end, text[start:end], 0.7, "list_sibling"))
    return _without_overlaps(text, sorted(out + added, key=lambda m: m.start)) if added else out


def _lines_beside(text: str, line_start: int, line_end: int, step: int) -> Iterator[tuple[int, int]]:
    """The (start, end) of the lines above (``step`` -1, nearest first) or below (1) a line."""
    at, to = line_start, line_end
    while True:
        if step < 0:
            if at == 0:
                return
            to = at - 1
            at = text.rfind("\n", 0, to) + 1
        else:
            if to >= len(text):
                return
            at = to + 1
            to = text.find("\n", at)
            to = len(text) if to < 0 else to
        yield at, to


def _plain_words(words: list[str]) -> bool:
    """Whether capitalised words may be a person's name: none a stop, organisation or region word, and
    together no listed place."""
    for word in words:
        if _FLAGS.get(word, 0) & (_F_STOP | _F_ORG | _F_REGION) or word in _ROLE_LABELS:
            return False
    return " ".join(words) not in _PLACE_FOLDED


# The evidence of a full name whose unlisted surname is a name alone too: a strong cue or a title
# before it ("directed by Nestor Quelbarin"); without one, "Junior Championships" is a first name and a
# word of a title.
_SURNAME_EVIDENCE: Final = frozenset(("cue+gazetteer", "title"))


def _count_of(text: str, word: str, counts: dict[str, int]) -> int:
    """``text.count(word)``, kept in ``counts`` for the next time ``word`` is asked about."""
    n = counts.get(word, -1)
    if n < 0:
        n = counts[word] = text.count(word)
    return n


def _same_names(text: str, tokens: list[tuple[str, int, int]], out: list[NameMatch]) -> list[NameMatch]:
    """``out`` with the other mentions of a person's names found in it: once "Teresa Holland" is a
    person, "Teresa" elsewhere in the text is too ("You can tell Teresa was a huge Teresa Holland fan")."""
    names = set()
    # Each word counted once: a transcript of one speaker has thousands of matches of the same name.
    counts: dict[str, int] = {}
    for match in out:
        if match.type == "person" and match.evidence != "same_name":
            # Names read by their context or shape carry their words unlisted ("Saidali had given
            # Saidali his address"); others only their listed words (issue 16, fourth pass).
            unlisted = match.evidence in _UNLISTED_EVIDENCE
            words = match.value.split()
            # The surname of a listed first name and one more word is a name, listed or not: once
            # "Nestor Quelbarin" is a person, "starring Quelbarin" is too (fifth pass).
            surname = (
                words[-1] if len(words) == 2 and match.evidence in _SURNAME_EVIDENCE and _named(match) else ""
            )
            for word in words:
                flags = _FLAGS.get(word, 0)
                if (
                    len(word) > 2
                    and (unlisted or word == surname or flags & (_F_FIRST | _F_SURNAME))
                    and not flags & (_F_STOP | _F_PLACE | _F_AMBIGUOUS | _F_ORG)
                    and _count_of(text, word, counts) > 1  # most names occur once: nothing else to find
                ):
                    names.add(word)
    if not names:
        return out
    added = []
    k = 0
    for n, (_word, start, end) in enumerate(tokens):
        while k < len(out) and out[k].end <= start:
            k += 1
        if k < len(out) and out[k].start < end:
            continue  # inside a name or place found already
        if (n > 0 and _joined(text, tokens[n - 1][2], start)) or (
            n + 1 < len(tokens) and _joined(text, end, tokens[n + 1][1])
        ):
            continue  # part of a longer run that was found to be no person ("Barlow Park")
        value = text[start:end]
        if value in names:
            added.append(NameMatch("person", start, end, value, 0.7, "same_name"))
    return sorted(out + added, key=lambda m: m.start) if added else out


# A name written in lower case, as chats write them ("i talked to leslie carroll", h19d): a listed
# first name and a listed surname, after a verb of contact or before a verb of a person's doing.  The
# capitalised-token reading above cannot see them; without the cue, "grant access" and "will power"
# would be names, so one is needed (``may_find`` asks for them in a text with no capital).
_LOWER_CUE: Final = (
    r"(?:talked to|talk to|talking to|spoke to|spoke with|speak to|speak with|chatted with|met with|"
    r"ask|asked|tell|told|ping|pinged|cc|message|messaged|dm|call|called|email|emailed|text|texted|"
    r"remind|reminded|thank|thanks|thx|assigned to|forward to|forwarded to|sent to|send to|cc'd)"
)
_LOWER_VERB: Final = (
    r"(?:is|was|said|says|forgot|forgets|will|would|wants|wanted|needs|needed|asked|told|called|"
    r"emailed|texted|has|had|left|joined|agreed|thinks|thought|mentioned|wrote|replied|sent|says)"
)
# A surname in lower case: "o'sullivan", "smith-jones".  Atomic (h20e): each use is followed by a blank
# or by no word character, ``'``, ``’`` or ``-``, and every shorter reading of the group ends before a
# letter or one of those three, so giving characters back never leads to a match; without it ``re``
# gave back one character at a time at every word of every text (same matches, fewer steps).
_LOWER_SURNAME: Final = rf"(?>[{_LOWER}]+(?:['’\-][{_LOWER}]+)?)"
_LOWER_NAME: Final = re.compile(
    rf"(?<![\w@./\-'’])(?:{_LOWER_CUE}[ \t]+({_LOWER_SURNAME})[ \t]+({_LOWER_SURNAME})(?![\w@./\-'’])"
    rf"|({_LOWER_SURNAME})[ \t]+({_LOWER_SURNAME})(?=[ \t]+{_LOWER_VERB}\b))"
)
# What every match of ``_LOWER_NAME`` holds (h20e): a cue or a verb as a whole word (cues end in a
# letter and are followed by a blank), after a non-word character (the look-behind's, or the blank
# before a verb) or at the start of the text.  One trie of all those words led by ``\W``, so ``re``
# skips to the blanks and punctuation and tries one branch per letter there; ``_LOWER_NAME``, led by
# a look-behind and an alternation of thirty cues, was tried at every position of every text (a sixth
# of a cold pass of ``detect_pii`` over the generated lines).  A text without it holds no match.
_LOWER_CUE_WORDS: Final = tuple(_LOWER_CUE[3:-1].split("|"))
_LOWER_VERB_WORDS: Final = tuple(_LOWER_VERB[3:-1].split("|"))
# Their first letters: ``str.startswith`` with the tuple of thirty cues costs about 3,400 instructions
# compiled, a look-up of the text's first character about 60 (h22e).
_LOWER_CUE_FIRST: Final = frozenset(word[0] for word in _LOWER_CUE_WORDS)
_LOWER_NAME_GATE: Final = re.compile(rf"\W{trie_pattern(_LOWER_CUE_WORDS + _LOWER_VERB_WORDS)}\b")
# Listed first names and surnames that are common English or code words written in lower case ("see
# more", "master branch", "port ready"): never a name here.  The words of the lists that occur 30 times
# or more in lower case in English prose and code comments (CPython's library, this repository's docs),
# and a few trades and colours.
_LOWER_NOT_NAME: Final = _words(
    "able admin alen alpha angle arch arena ash asks back bad baker ball bare barrier bash basic beam "
    "been begin below bench beta big black blank blanks block blue body bold book border bot bottom "
    "bounds brace branch brown build bunch butler button call cancel cap case cases cash ceil certain "
    "chain channel char check cherry child choice circle class clear close colon comes comment conn "
    "constant cook core corner corpus cost counts cover cross cue curl current dark darwin dash dates "
    "day days deal deb del delay delta deploy dev doc dot down drain dry due eager early echo edge edit "
    "elem elif emit ender even every factor fail fails fall fast fed few field fields file files fill "
    "fine fisher fix font force ford forward frame free fresh getter given go going good goto gray "
    "greek green grey grob guard guess hack hand handler hard hash haven head heap height held helper "
    "hence high hill holding hook hooks host human ivar jc job jump junk just keep key keys klass la "
    "lack lang large larger lasso leader leaf leak leaks learn learned lease len level lex light line "
    "lines link linker list lo lock look loop loose low ly mac made magic main mako man manual many "
    "marker marks marshal mask master mat math matter means miller min minor mix mo mock mode more most "
    "na nan near nice nil numbers odd ours overall pack pages pair parent parts pass patch patt peek "
    "peer people perl person persons pick pickle plain pointer points pool pop port power pretty prior "
    "proper proto race rain rand range rather reach read reader reading ready real reason reasons "
    "record red refs register render repo right risk rm rock roman root roots round rounds row rule "
    "runner running said sale sample say screen see self sell server session sessions shell short "
    "shorter show shows sin six skip sky small smart snow soon span speed spell spinner stack stage "
    "standard start stem still stone stops straight strong styles such sum super sys tab tan team tell "
    "test than tilde topic town trace treat trees trim un uni unique unknown val valid ver vi wait walk "
    "wall weight well were white won wood word works world worth ye"
)
# Of those, the surnames that a listed first name before them makes a name ("billy wood").
_LOWER_SURNAME_WORDS: Final = _words(
    "ash baker ball black brown butler cash cook fisher ford gray green grey hall hill king lee marshal "
    "miller rock stone wall west white wood young"
)


# The names pass's scans that the PII pass's one hyperscan pass also runs (h23h): ``pii._PREFILTER``
# reads these patterns in the same scan as the types' and hands their bits (``scans``) to ``may_find``
# and ``find_names``.  A step whose scan cannot match is skipped without its own search over the text.
# Each scan is a superset of what its step looks for:
#
# - ``_LOWER_NAME``: a cue, then two words; or two words, then a verb (the look-ahead read as text);
# - the cues of ``_street_addresses`` (``_ADDRESS_CUE``), its two look-aheads read as one run of text:
#   a digit at once, or what an address starts with (no digit and no line break in any of its forms),
#   then the rest of the 80 characters before the digit;
# - ``_CAPS_TOWN`` and ``_PREFIXED_TOWN``.
#
# Hyperscan's prefilter mode widens what it cannot run (look-behinds), and ``_hyperscan_form`` widens
# two things for the projection of the text (``multiscan``): a non-ASCII letter is projected to an ASCII
# letter that passes every test the letter passes, and the types' patterns test for a letter that is no
# ASCII lower-case one, so ``[{_LOWER}]`` takes ``A-Z_`` too and a non-ASCII literal becomes ``.``.
# Without them the texts with an accented letter would have no projection (and no scan at all).


def _hyperscan_form(source: str) -> re.Pattern[str]:
    """``source`` with its lower-case letter classes and non-ASCII literals widened (see above).

    >>> _hyperscan_form("allée [^]é][" + _LOWER + "]").pattern == "all.e [^]é][A-Z_" + _LOWER + "]"
    True
    """
    source = source.replace(f"[{_LOWER}", f"[A-Z_{_LOWER}")
    # "Α-Ω" holds an unassigned code point (U+03A2), no word character: its stand-in must be none
    # either and pass the class, so the class takes DEL, which no text holds.
    source = source.replace(f"[{_CAPS}", f"[\\x7f{_CAPS}")
    return re.compile(
        "".join(
            "." if not inside and end == start + 1 and not source[start].isascii() else source[start:end]
            for start, end, inside in regex_pieces(source)
        )
    )


_LOWER_WORD_SCAN: Final = rf"[{_LOWER}]+(?:['’\-][{_LOWER}]+)?"
NAME_SCANS: Final = (
    _hyperscan_form(
        rf"{_LOWER_CUE}[ \t]+{_LOWER_WORD_SCAN}[ \t]+{_LOWER_WORD_SCAN}"
        rf"|{_LOWER_WORD_SCAN}[ \t]+{_LOWER_WORD_SCAN}[ \t]+{_LOWER_VERB}\b"
    ),
    _hyperscan_form(f"{_ADDRESS_CUE_LEAD}(?:\\d|{_ADDRESS_START}{_ADDRESS_DIGIT_AHEAD})"),
    _hyperscan_form(_CAPS_TOWN.pattern),
    _hyperscan_form(_PREFIXED_TOWN.pattern),
)
SCAN_LOWER_NAME: Final = 1
SCAN_STREET: Final = 2
SCAN_CAPS_TOWN: Final = 4
SCAN_PREFIXED_TOWN: Final = 8
# Every bit set: no scan told (no hyperscan, or not ready), so every step looks for itself.
ALL_SCANS: Final = -1


def _lower_flags(word: str) -> int:
    """The flags of a word written in lower case, as the lists write it ("o'sullivan" is "O'Sullivan",
    "heinz-willi" "Heinz-Willi"; "björn" is "Björn", or "Bjorn" folded)."""
    written = word.capitalize()
    if "-" in word or "'" in word or "’" in word:
        written = "-".join("'".join(p.capitalize() for p in part.split("'")) for part in word.split("-"))
    flags = _FLAGS.get(written, -1)
    if flags < 0:
        flags = _FLAGS.get(fold(written), 0) if not written.isascii() else 0
    if not flags and ("'" in word or "’" in word):
        flags = _FLAGS.get(word.replace("'", "").replace("’", "").capitalize(), 0)  # the census's "Osullivan"
    return flags


def _lower_names(text: str, out: list[NameMatch]) -> list[NameMatch]:
    """``out`` with the names written in lower case (``_LOWER_NAME``) not found yet."""
    if _LOWER_NAME_GATE.search(text) is None and not (
        text[:1] in _LOWER_CUE_FIRST and text.startswith(_LOWER_CUE_WORDS)
    ):
        return out  # no cue and no verb: ``_LOWER_NAME`` cannot match (exact, see the gate)
    added: list[NameMatch] = []
    for match in _LOWER_NAME.finditer(text):
        g = 1 if match.group(1) is not None else 3
        first, last = match.group(g), match.group(g + 1)
        if len(first) < 2 or len(last) < 2:
            continue
        first_flags = _lower_flags(first)
        last_flags = _lower_flags(last)
        if (
            # A first name that is also a town's is one here ("david", "mary"); not a region's.  One
            # that is also a word ("heather", "misty") only before a surname that is none.
            first_flags & (_F_FIRST | _F_STOP | _F_REGION) == _F_FIRST
            and (not first_flags & _F_AMBIGUOUS or (last_flags & _F_SURNAME and last not in _LOWER_NOT_NAME))
            and last_flags & (_F_FIRST | _F_SURNAME)
            and not last_flags & (_F_STOP | _F_REGION)
            and first not in _LOWER_NOT_NAME
            and (last not in _LOWER_NOT_NAME or last in _LOWER_SURNAME_WORDS)
        ):
            start, end = match.start(g), match.end(g + 1)
            if not any(m.start < end and start < m.end for m in out):
                added.append(NameMatch("person", start, end, text[start:end], 0.7, "lower_case_name"))
    return sorted(out + added, key=lambda m: m.start) if added else out


def may_find(text: str, lowered: str, scans: int = ALL_SCANS) -> bool:
    """Whether ``find_names`` may find anything in ``text`` (``lowered`` is its lower-cased form): every
    name or place it reports starts at a capital letter, lies on the lines of an address or follows a
    postcode's label (``POSTCODE_LABELS``) or is a name written in lower case (``_lower_names``), so a
    text that lower-casing leaves unchanged (no capital at all), that has one line, no such label and
    no such name holds none.  Exact: a capital always changes when lower-cased, the labels are looked
    for in any case, and the names in lower case are read as ``find_names`` reads them.

    >>> may_find("i talked to leslie carroll", "i talked to leslie carroll")
    True

    >>> may_find("call me at 415-555-0132", "call me at 415-555-0132")
    False
    >>> may_find("zip: 2680-043", "zip: 2680-043")
    True
    """
    return (
        "\n" in text
        or lowered != text
        or any(word in lowered for word in _POSTCODE_FIRST)
        # A name in lower case (h19d), where the hyperscan pass (``scans``) left it possible.
        or (scans & SCAN_LOWER_NAME != 0 and bool(_lower_names(text, [])))
    )


# A place's value goes on past where a pattern stopped (issue 16, h22f): a town's particle and the
# capitalised words after it ("[7937-904 Alcácer] do Sal", "[Klobouky] u Brna", "[6288 Purbach] am
# Neusiedler See", "[Biel]/Bienne"), and before it a street's word in lower case ("boulevard [Beurret
# 46, 8904 ...]") or a house number and a name before a street type ("7274 Kipras [Mews ...]").  A
# redaction that stops there leaves part of the place readable.
_PLACE_TAIL: Final = re.compile(
    r"(?:[ \t]+(?:de|do|da|dos|das|del|della|di|du|la|le|les|am|an|im|u|nad|pod|pri|sur|sous|lès|upon|"
    rf"bei|ob)){{1,2}}[ \t]+([{_UPPER}][\w'’\-]*(?:[ \t]+[{_UPPER}][\w'’\-]*){{0,2}})"
    rf"|/([{_UPPER}][\w'’\-]+)"
)
_PLACE_HEAD: Final = re.compile(
    r"(?<![\w\-])(?:boulevard|avenue|rue|chemin|route|allée|impasse|quai|via|viale|calle|rua|avenida|"
    r"strada|ulica|cesta|travessa|praça|largo)(?:[ \t]+(?:de|du|des|di|da|do|del|de[ \t]la))?[ \t]+\Z"
)
# After a street and its house number, the postcode and town (or town and postcode) that a pattern
# left out, after a comma or on the next line: "[Regentova cesta 8], 8362 Ljutomer", "[Rašínská 437]⏎346
# 57 Kamenický Šenov", "[9 Larsen Road], Tangiwaka 5565", "[94 Butler Circle]⏎West Michael, NSW, 2007".
_STREET_TAIL: Final = re.compile(
    rf"(?:,[ \t]*|[ \t]*\n[ \t>]*)"
    rf"(?:(?:[A-Z]{{1,2}}-)?(?P<code>\d{{3,5}}(?:[ \-]\d{{2,4}})?)[ \t]+{_LINE_TOWN}"
    rf"|[{_UPPER}][\w'’\-]*(?:[ \t]+[{_UPPER}][\w'’\-]*){{0,3}},?[ \t]+(?:[A-Z]{{2,3}},?[ \t]+)?"
    rf"(?P<post>{_LINE_POSTCODE}))(?=[ \t]*(?:$|[\n.,;!?)]|[ \t]+[a-z]))"
)
# A house number or a postcode right after a place, where a redaction stopped (h23g): "the north side
# of [Dalmatinova] 43.", "the corner of [Parmova] 109 St.", "in [Cameri] 28062 in its mission",
# "[Cookstown] L0L 1L0".  A short number only before the sentence's end or "St"; a postcode also
# before a preposition ("London 3 times" and "Tokyo 5000 employees" stay as they were).
_NUMBER_TAIL: Final = re.compile(
    r"[ \t](?:(?P<house>\d{1,3}[a-zA-Z]?)(?=[.,;:!?)]|[ \t]+St\b|[ \t]*(?:\n|\Z))"
    r"|(?P<code>\d{4,5}(?:-\d{3,4})?|[A-Z]\d[A-Z][ \t]?\d[A-Z]\d)"
    r"(?=[.,;:!?)]|[ \t]+(?:in|at|on|for|by|and|is|was)\b|[ \t]*(?:\n|\Z)))"
)
_TAIL_STARTS: Final = frozenset((" ", "\t", "/"))
_STREET_TAIL_STARTS: Final = frozenset((",", " ", "\t", "\n"))
_HEAD_WORDS: Final = _words(
    "boulevard avenue rue chemin route allée impasse quai via viale calle rua avenida strada ulica cesta "
    "travessa praça largo"
)
_HEAD_PARTICLES: Final = _words("de du des di da do del la")
_NUMBERED_HEAD: Final = re.compile(rf"(?<![\w\-/])\d{{1,5}}[A-Za-z]?[ \t]+[{_UPPER}][\w'’\-]*[ \t]+\Z")


def whole_place(text: str, start: int, end: int) -> tuple[int, int]:
    """The span of the place or address at ``text[start:end]`` with what goes on before and after it
    (``_PLACE_TAIL``, ``_PLACE_HEAD``, ``_NUMBERED_HEAD``); the same span when nothing does.

    >>> text = "Return address: Rua Ricardo Carvalho, 41, 7937-904 Alcácer do Sal"
    >>> text[slice(*whole_place(text, 16, 58))]
    'Rua Ricardo Carvalho, 41, 7937-904 Alcácer do Sal'
    >>> text = "Return address: boulevard Beurret 46, 8904 Chevrolet"
    >>> text[slice(*whole_place(text, 26, 52))]
    'boulevard Beurret 46, 8904 Chevrolet'
    >>> whole_place("We meet in Paris on Monday", 11, 16)
    (11, 16)
    """
    # One look at the character after and the word before settles most places (nothing goes on).
    after = text[end : end + 1]
    if after == " " and text[end + 1 : end + 2].isalnum() and not text[end - 1 : end].isdigit():
        number = _NUMBER_TAIL.match(text, end)
        if number is not None and _YEAR_WORD.fullmatch(number.group("code") or "") is None:
            end = number.end()
            after = text[end : end + 1]
    tail = _PLACE_TAIL.match(text, end) if after in _TAIL_STARTS else None
    if tail is not None:
        words = (tail.group(1) or tail.group(2)).split()
        if not any(_FLAGS.get(w, 0) & _F_STOP for w in words):
            end = tail.end()
    elif after in _STREET_TAIL_STARTS:
        last = text[end - 1 : end]
        # A street ends in its house number ("cesta 8", "Kamenita 9c") or, number first, in its type
        # ("9 Larsen Road").
        if (
            last.isdigit()
            or (last.isalpha() and text[end - 2 : end - 1].isdigit())
            or (last.isalpha() and lower(text[max(start, end - 12) : end].split()[-1]) in _STREET_TYPES)
        ):
            street = _STREET_TAIL.match(text, end)
            code = None if street is None else street.group("code") or street.group("post")
            if street is not None and code is not None and _YEAR_WORD.fullmatch(code) is None:
                words = text[street.start() : street.end()].replace(",", " ").split()
                if not any(_FLAGS.get(w, 0) & _F_STOP and w not in _TOWN_PREFIX_WORDS for w in words):
                    end = street.end()
    if start > 1 and text[start - 1] in " \t":
        before = text[max(0, start - 24) : start].split()
        if before and (
            lower(before[-1]) in _HEAD_WORDS
            or (len(before) > 1 and before[-1] in _HEAD_PARTICLES and lower(before[-2]) in _HEAD_WORDS)
        ):
            head = _PLACE_HEAD.search(text, max(0, start - 40), start)
            if head is not None:
                start = head.start()
        elif (
            before
            and before[-1][:1].isupper()
            and lower(text[start:end].split()[0].rstrip(".,")) in _STREET_TYPES
        ):
            numbered = _NUMBERED_HEAD.search(text, max(0, start - 40), start)
            if numbered is not None:
                start = numbered.start()
    return start, end


def find_names(text: str, scans: int = ALL_SCANS) -> list[NameMatch]:
    """Person names and places in ``text``, ordered by position (they never overlap).

    ``scans``: the bits of ``NAME_SCANS`` that may match ``text`` (from one hyperscan pass); a step
    whose scan cannot match is skipped.  The default, every bit, has each step look for itself.

    >>> [(m.type, m.value) for m in find_names("Dear Ms Okafor, your parcel from Lyon, France is held.")]
    [('person', 'Okafor'), ('location', 'Lyon, France')]
    """
    out: list[NameMatch] = []
    tokens = _tokens(text)
    count = len(tokens)
    i = 0
    while i < count:
        # A run: tokens joined by single spaces (or particles).
        stop = i + 1
        while stop < count and _joined(text, tokens[stop - 1][2], tokens[stop][1]):
            stop += 1
        _run(text, tokens, i, stop, out)
        i = stop
    # A "City, Region" is reported when read, a person of the same run once the run ends: where a
    # person's name ran straight into a place ("Anna Anna Lisbon, France"), the place came first.
    out.sort(key=lambda m: m.start)
    if "\n" in text:
        out = _line_people(text, out)
    if "," in text:
        out = _addressed(text, out)
    if " and " in text or " & " in text:
        out = _grouped_people(text, out)
    if out:
        out = _list_siblings(text, out)
    if scans & SCAN_LOWER_NAME:
        out = _lower_names(text, out)
    if out:
        out = _same_names(text, tokens, out)
    if scans & SCAN_CAPS_TOWN and _CAPS_TOWN.search(text) is not None:
        towns = [t for t in _caps_towns(text) if not any(m.start < t.end and t.start < m.end for m in out)]
        if towns:
            out = sorted(out + towns, key=lambda m: m.start)
    if any(token[0] in _STREET_TYPE_TOKENS for token in tokens):
        out = _named_streets(text, out)
    if "Sa" in text or "St" in text or "Sint" in text or "São" in text:
        out = _saint_towns(text, out)
    if scans & SCAN_PREFIXED_TOWN and _PREFIXED_TOWN.search(text) is not None:
        out = _prefixed_towns(text, out)
    if out:
        out = _other_mentions(text, out)
    if any(form in text for form in _POSTCODE_FORMS):
        out = _postcodes(text, out)
    if _DIGIT.search(text) is not None:
        out = _coded_towns(text, out)
    if not text.isascii() and _GREEK_LETTER.search(text) is not None:
        out = _greek_places(text, out)
    if scans & SCAN_STREET and _DIGIT.search(text) is not None:
        out = _street_addresses(text, out)
    if "\n" in text:
        out = _postcode_lines(text, out)
        out = _address_column(text, out)
    if "\n" in text:
        lines = _address_lines(text)
        if lines:
            # An address's lines win over a name read in them ("Lady Frere" is a town there).
            kept = [m for m in out if not any(m.start < a.end and a.start < m.end for a in lines)]
            out = sorted(kept + lines, key=lambda m: m.start)
    return _without_overlaps(text, out)


def _start_of(match: NameMatch) -> int:
    return match.start


def _without_overlaps(text: str, out: list[NameMatch]) -> list[NameMatch]:
    """``out`` (ordered by start) with no two spans overlapping, as the result promises.

    The passes above each avoid what came before them, but two places read from one run can still
    share words ("Lisbon, France" and "France-Lisbon, France" in "Anna Lisbon, France-Lisbon, France"):
    two overlapping spans of one type become their union (a redactor must cover both), of two types the
    longer one stays (the first on a tie).

    >>> [(m.type, m.value) for m in _without_overlaps("Lisbon, France-Paris", [
    ...     NameMatch("location", 0, 14, "Lisbon, France", 0.8, "gazetteer"),
    ...     NameMatch("location", 8, 20, "France-Paris", 0.7, "gazetteer")])]
    [('location', 'Lisbon, France-Paris')]
    """
    kept: list[NameMatch] = []
    for match in sorted(out, key=_start_of):
        last = kept[-1] if kept else None
        if last is None or last.end <= match.start:
            kept.append(match)
        elif last.type == match.type:
            start, end = last.start, max(last.end, match.end)
            confidence = max(last.confidence, match.confidence)
            kept[-1] = NameMatch(last.type, start, end, text[start:end], confidence, last.evidence)
        elif match.end - match.start > last.end - last.start:
            kept[-1] = match
    return kept


# Listed first names that are months or words, so stop words that cut a run ("April", "Will"): with a
# surname after them, a name after a strong cue.  Not the titles ("Miss", "Lady"), which are cues.
_STOP_FIRST_NAMES: Final = _words("April August June May Will Jan")


def _cued_person(text: str, start: int) -> bool:
    """Whether a title or a strong person cue stands right before ``start``."""
    before = _Before(text, start)
    last = before.words[-1] if before.words else ""
    return bool(before.cue(_TITLE_CUES) or before.cue(_STRONG_CUES)) or last.rstrip(".") in _TITLE_CUES


def _run(text: str, tokens: list[tuple[str, int, int]], i: int, stop: int, out: list[NameMatch]) -> None:
    """Places and names in the run ``tokens[i:stop]``, appended to ``out`` in order."""
    words: list[str] = []
    seg_start = seg_end = -1
    seg_last: str | None = None  # the word before the segment, once read
    while i <= stop:
        word, start, end = tokens[i] if i < stop else ("", -1, -1)
        flags = _FLAGS.get(word, 0)
        located = 0
        last_word: str | None = None
        places = 0
        # A token inside a "City, Region" just reported starts nothing ("Lisbon, France-Lisbon, ...").
        inside = i < stop and bool(out) and out[-1].end > start
        if not inside and i < stop and (flags & _F_PLACE or (flags & _F_PREFIX and i + 1 < stop)):
            places = _place_at(text, tokens, i, stop)
            # A listed place that goes on after a particle is a longer name ("Ribeira do Campo").
            while (
                places
                and not flags & _F_FIRST  # "to Bradley van Oosten": a person's particle
                and i + places < stop
                and text[tokens[i + places - 1][2] : tokens[i + places][1]].strip() in _PARTICLES
                and not _FLAGS.get(tokens[i + places][0], 0) & _F_STOP
            ):
                places += 1
            if places:
                place_end = tokens[i + places - 1][2]
                name = text[start:place_end]
                region = _AFTER_CITY.match(text, place_end)
                if region is not None and region.group(1) in _REGION and name not in _REGION:
                    out.append(
                        NameMatch(
                            "location", start, region.end(), text[start : region.end()], 0.85, "city_region"
                        )
                    )
                    located = places
                    while i + located < stop and tokens[i + located][1] < region.end():
                        located += 1
                    if i + located == stop and stop < len(tokens) and tokens[stop][1] < region.end():
                        pass  # the region ran into the next run: it is skipped there by position
                elif (i + places < stop and _FLAGS.get(tokens[i + places][0], 0) & _F_ORG) or _is_firm(
                    text, name, place_end
                ):
                    pass  # "at Torres Group", "at Rojas, Schmidt and Holden": a firm named like a town
                else:
                    before = _Before(text, start)
                    cue = before.cue(_PLACE_CUES)
                    if cue and name in _MONTH_TOWNS and before.cue(_STRONG_PLACE_CUES) in _STAY_CUES:
                        cue = ""  # "We met in March": a month, though March is a town too (h23g)
                    if (
                        not cue
                        and before.words
                        and before.words[-1] in _SITE_OWNERS
                        and _FACILITY_AFTER.match(text, place_end) is not None
                    ):
                        cue = "site_of"
                    if not cue and _LANDMARK_AFTER.match(text, place_end) is not None:
                        cue = "landmark"  # "Tuttlingen bridge", "Tampa Country Club"
                    if (
                        not cue
                        and name in _REGION
                        and not flags & _F_AMBIGUOUS  # "Jordan is", "Georgia was": people as often
                        and _REGION_VERB.match(text, place_end) is not None
                    ):
                        cue = "region_subject"
                    if (
                        not cue
                        and not words
                        and i + places == stop
                        and name in _REGION_ALONE
                        and before.words
                        and before.words[-1].endswith(("ing", "ed"))
                        and len(before.words[-1]) > 4
                        and _REGION_ADJECTIVE.match(text, place_end) is None  # "the Angola government"
                    ):
                        cue = "region_object"  # "serving Finland", "toured Peru" (fifth pass)
                    if (
                        cue
                        and _postal_address_cue(before, cue)
                        and not (cue.split()[0] in _SHARED_CUES and name in _FIRST and name not in _REGION)
                        and not before.cue(_STRONG_CUES)  # "according to Esna Arslan": a person
                    ):
                        out.append(NameMatch("location", start, place_end, name, 0.8, "cue+gazetteer"))
                        located = places
        if not places and not inside and i < stop and not flags & (_F_STOP | _F_FIRST):
            last_word = _last_word(text, start)
            located = _unknown_place(text, tokens, i, stop, out, last_word)
        if i == stop or located or flags & _F_STOP or (not words and word in _PARTICLES):
            while words and words[-1] in _PARTICLES:
                words.pop()
            # Words right before an organisation word name the organisation ("Athena Diagnostics").
            if words and not (i < stop and flags & _F_ORG):
                _emit_person(text, words, seg_start, seg_end, out, seg_last)
            words = []
            if (
                flags & _F_STOP
                and word in _STOP_FIRST_NAMES
                and not inside
                and i + 1 < stop
                and _FLAGS.get(tokens[i + 1][0], 0) & (_F_SURNAME | _F_STOP) == _F_SURNAME
                and _cued_person(text, start)
            ):
                # A first name that is a month or a word, then a listed surname, after a strong cue:
                # "Best regards,⏎April Ross", "Dear May Chen" (h23g); without it "April Ross" is a date's.
                end = tokens[i + 1][2]
                out.append(NameMatch("person", start, end, text[start:end], 0.8, "cue+stop_first_name"))
                i += 2
                continue
            i += max(1, located)
            continue
        if out and out[-1].end > start:
            i += 1
            continue  # inside a "City, Region" just reported
        if not words:
            seg_start = start
            seg_last = last_word
        words.append(word)
        seg_end = end
        i += 1
