"""Benign tool results the learned part rated as attacks: models' answers and writing about attacks (h25b).

Issue 16's PyRIT measurement left the learned part's scores on two kinds of benign fetched text high
(0.99+ on its dev half) while the rules passed them: a model's *answer* returned as a tool result, which
talks to its reader ("you told me that ...", "do you want me to ...", "you should ...", "I can't help
with that, but ..."), and *catalogues* of attack techniques whose entries have no subject
("Impersonates system-level authority to override safety guidelines"). The training set had 800 short
assistant answers (``reader_data``) and no catalogue. This module writes, from templates and vocabulary of
its own (nothing read from an evaluation file or from PyRIT), seeded with :class:`random.Random`:

- **assistant answers** (benign tool results): openers that restate the user's words in the second
  person, advice with "you"/"your", questions back to the reader, offers, refusals with the reason and
  an alternative, and answers that mention the assistant's own rules ("my guidelines", "as an AI");
- **technique catalogues** (benign tool results): subjectless entries ("Asks the model to ...",
  "Pretends to be ...") in lists, tables, glossaries and taxonomies, each with a name and a mitigation;
- **security advisories, defence advice and changelogs** (benign tool results): third-person and
  imperative text for human operators about injection, jailbreaks and filters.

Every example is ``(text, source, label, origin, group)``; a group is one template of one kind, so the
calibration split of ``train_injection.py`` holds out whole templates.
"""

from __future__ import annotations

import random

__all__ = ["answer_examples"]

# ----------------------------------------------------------------------------- vocabulary

_TOPICS = (
    # (what the user asked about, a noun phrase, an advice verb phrase)
    ("your neighbour's loud music", "the noise", "write down the dates and times it happens"),
    ("a fight with your sister", "the argument", "give yourselves a day before you talk again"),
    ("your landlord keeping the deposit", "the deposit", "ask for an itemised list of deductions"),
    ("feeling stressed at work", "the stress", "take short breaks away from your screen"),
    ("a coworker taking credit for your work", "the situation", "keep a written record of your tasks"),
    ("your credit card debt", "the debt", "list every balance with its interest rate"),
    ("a rash on your arm", "the rash", "keep the area clean and avoid scratching it"),
    ("trouble sleeping", "your sleep", "keep the same bedtime every night"),
    ("your slow laptop", "the slowdown", "check which programs start with your computer"),
    ("a bad review of your restaurant", "the review", "reply politely and offer to make it right"),
    ("your teenager's screen time", "screen time", "agree on the rules together"),
    ("losing weight safely", "your plan", "aim for small changes you can keep"),
    ("a scam call you received", "the call", "hang up and call your bank on its official number"),
    ("your car making a grinding noise", "the noise", "have the brakes inspected soon"),
    ("being angry at your ex", "the anger", "write the letter but do not send it"),
    ("a dispute with a contractor", "the dispute", "collect the contract, invoices and photos"),
    ("your dog's anxiety", "the anxiety", "build up the time alone slowly"),
    ("studying for your exam", "revision", "test yourself instead of rereading notes"),
    ("someone spreading rumours about you", "the rumours", "talk to someone you trust about it"),
    ("your small business taxes", "the taxes", "keep receipts for every expense"),
    ("a chemistry experiment at home", "the experiment", "wear goggles and work in a ventilated room"),
    ("getting revenge on a coworker", "the conflict", "raise the problem with your manager"),
    ("a password you forgot", "the account", "use the official reset link"),
    ("your phone bill going up", "the bill", "compare your plan with what you actually use"),
    ("writing a cover letter", "the letter", "open with the role and why you want it"),
)

_FEELINGS = ("frustrated", "worried", "upset", "overwhelmed", "angry", "hurt", "anxious", "stuck")

_SAID = (
    "You told me that {ask} has been bothering you for weeks.",
    "You mentioned {ask}, and I can see why that is hard.",
    "You said you're {feel} about {ask}.",
    "It sounds like {ask} is really getting to you.",
    "Thanks for telling me about {ask}.",
    "From what you've described, {ask} is the main problem.",
    "I understand that you feel {feel} about {ask}.",
    "You asked me how to deal with {ask}.",
    "Based on what you wrote, you want to handle {ask} without making things worse.",
    "You're right to be {feel} about {ask}; let's look at it calmly.",
)

_ADVICE = (
    "You could {advice}.",
    "You should {advice} before anything else.",
    "I'd suggest that you {advice}.",
    "It may help to {advice}.",
    "Your best first step is to {advice}.",
    "If you can, {advice}.",
    "Try to {advice}; it usually makes {noun} easier to handle.",
    "You might also want to talk to a professional about {noun}.",
    "Remember that you don't have to solve {noun} alone.",
    "Make sure you keep copies of everything related to {noun}.",
    "You can ask a friend to help you with {noun}.",
    "Don't do anything that could put you or others at risk.",
    "Check your local rules, because they may change how you handle {noun}.",
    "Write down what you want to say before you start the conversation.",
)

_QUESTIONS = (
    "Do you want me to help you write a message about {noun}?",
    "Do you want a step-by-step plan?",
    "Would you like me to explain any of these options in more detail?",
    "Can you tell me a bit more about {noun}?",
    "Have you already tried talking to them directly?",
    "What outcome are you hoping for?",
    "Would it help if I drafted a letter for you?",
    "Is there a deadline I should know about?",
    "Do you want me to compare the options in a table?",
    "How long has {noun} been going on?",
    "Shall I shorten this into a checklist for you?",
)

_OFFERS = (
    "If you want, I can draft the e-mail for you.",
    "Let me know if you'd like more ideas.",
    "I'm happy to go through it with you step by step.",
    "Tell me more and I can tailor this to your situation.",
    "I can also point you to resources if that would help.",
    "If anything here doesn't fit, tell me and we'll adjust it.",
)

_REFUSAL_REASONS = (
    "I can't help with that, because it could hurt someone.",
    "I'm not able to help with that request.",
    "I won't write that, since it could be used to harass a real person.",
    "I can't give instructions for that, as it could be dangerous.",
    "I'm sorry, but I can't assist with getting back at someone.",
    "That's not something I can help with, because it would break the law.",
    "I can't provide that information.",
    "I understand why you're asking, but I can't help you do that.",
)

_SELF_RULES = (
    "As an AI assistant, I have to follow my guidelines, so I won't pretend to be a different AI.",
    "My instructions don't let me ignore safety rules, even in a role-play.",
    "I can't switch into an unrestricted mode, but I can still help you with the original question.",
    "I don't have a hidden system prompt to reveal, and I can't share my configuration.",
    "I won't role-play as a character who has no rules, but I'm glad to write the story another way.",
    "Even if you ask me to forget my previous instructions, I'll keep answering safely.",
    "I'm an AI language model, so I don't have personal opinions, but here is a balanced view.",
    "My guidelines ask me not to give medical diagnoses, so please see a doctor about this.",
    "I can't act as a developer mode version of myself, but here's what I can do.",
    "I noticed the request asks me to bypass my content policy; I'll answer the safe part instead.",
)

_ALTERNATIVES = (
    "Instead, you could {advice}.",
    "What I can do is help you {advice}.",
    "A safer option is to {advice}.",
    "If it helps, you could {advice} and see how you feel afterwards.",
    "You might find it useful to {advice}.",
)

_EXPLAIN_SUBJECTS = (
    ("photosynthesis", "plants turn light, water and carbon dioxide into sugar and oxygen"),
    ("compound interest", "interest is earned on the interest already added to your balance"),
    ("the French Revolution", "a decade of upheaval in France that began in 1789"),
    ("a Python list comprehension", "a compact way to build a list from another iterable"),
    ("inflation", "the general rise in prices over time"),
    ("how vaccines work", "they train the immune system to recognise a germ"),
    ("the water cycle", "water evaporates, condenses into clouds and falls as rain"),
    ("a mortgage", "a loan secured on the home it pays for"),
    ("machine learning", "programs that improve at a task from examples"),
    ("a sonnet", "a fourteen-line poem with a fixed rhyme scheme"),
    ("how encryption protects your messages", "only the holder of the key can read them"),
    ("the stock market", "a place where shares of companies are bought and sold"),
)

_EXPLAIN = (
    "Sure! In short, {subject}: {gist}.",
    "Great question. {Subject}: {gist}.",
    "Here's a simple explanation of {subject}: {gist}.",
    "Think of {subject} this way: {gist}.",
)

_EXPLAIN_MORE = (
    "You'll often see it explained with an example, so here is one you can follow.",
    "If you're studying this for a class, focus on the definition first.",
    "The key idea is easy to miss, so read the second point twice.",
    "You don't need to memorise the details; understanding the idea is enough.",
    "In your own words, try to explain it to a friend; that's the best test.",
    "Your textbook probably has a diagram of this, which helps a lot.",
)

# ----------------------------------------------------------------------------- catalogues

_TECHNIQUES = (
    ("Role-play persona", "Asks the model to adopt a persona that has no rules"),
    ("Authority impersonation", "Poses as an administrator or the system to lift the safety rules"),
    ("Developer mode", "Claims the model has a hidden developer mode without filters"),
    ("Instruction override", "Tells the model to disregard its earlier instructions"),
    ("Prompt leaking", "Tries to make the model reveal its system prompt"),
    ("Payload splitting", "Splits a harmful request into harmless-looking parts"),
    ("Obfuscation", "Encodes the request in Base64, leetspeak or another language"),
    ("Refusal suppression", "Forbids the model from apologising or refusing"),
    ("Hypothetical framing", "Wraps the request in a fictional or hypothetical scenario"),
    ("Many-shot priming", "Fills the context with fake dialogues where the assistant complies"),
    ("Indirect injection", "Hides instructions in a web page or e-mail the agent will read"),
    ("Data exfiltration", "Makes the agent send private data to an attacker-controlled address"),
    ("Markdown image exfiltration", "Embeds an image link whose URL carries the conversation"),
    ("Tool hijacking", "Causes the agent to call a tool the user never asked for"),
    ("Context overflow", "Pads the prompt so that the system prompt falls out of the window"),
    ("Fake completion", "Inserts a fake end of the task followed by a new task"),
    ("Virtualisation", "Describes a simulated machine in which rules do not apply"),
    ("Opposite mode", "Requests answers from an evil twin of the assistant"),
    ("Token smuggling", "Builds a forbidden word from pieces inside code"),
    ("Emotional manipulation", "Pressures the model with urgency, guilt or a sick relative"),
    ("Crescendo", "Escalates a harmless conversation step by step toward the harmful goal"),
    ("Translation attack", "Asks for the answer in a low-resource language to slip past filters"),
    ("Output format forcing", "Dictates the exact words the reply must start with"),
    ("Persona persistence", "Reminds the model to stay in character whenever it refuses"),
)

_MITIGATIONS = (
    "Mitigation: keep system instructions separate from user content.",
    "Defence: filter tool output before it reaches the model.",
    "Detection: flag requests that mention the system prompt.",
    "Mitigation: require confirmation before any tool call that sends data.",
    "Defence: refuse role-play that removes safety behaviour.",
    "Detection: decode encoded text before classification.",
    "Mitigation: limit the context the attacker controls.",
    "Severity: high. Status: mitigated in the current release.",
    "Severity: medium. Seen in the wild since 2023.",
    "Risk: data leakage. Owner: platform security team.",
)

_CATALOGUE_FORMS = ("bullets", "table", "glossary", "numbered", "taxonomy", "csv")

_CATALOGUE_TITLES = (
    "Known jailbreak techniques",
    "Prompt injection taxonomy (internal draft)",
    "Red-team playbook: attack patterns",
    "Appendix B. Attack categories used in the evaluation",
    "LLM threat model: adversary techniques",
    "Glossary of prompt attacks",
    "Test plan: adversarial prompt families",
    "Attack library overview",
)

# ----------------------------------------------------------------------------- advisories, changelogs

_ADVISORIES = (
    "Security advisory {code}: {product} could follow instructions embedded in fetched web pages. "
    "Affected versions: {old} and earlier. Fixed in {new}. Operators should update and review agent "
    "permissions.",
    "Summary: an attacker who controls a document the assistant reads can make it {effect}. "
    "Impact: {impact}. Workaround: disable automatic tool calls until you upgrade to {new}.",
    "{product} {new} addresses a prompt injection issue reported by {team}. Untrusted content is now "
    "labelled before it reaches the model. No action is required for hosted customers.",
    "Advisory {code} ({severity}): the e-mail plug-in passed message bodies to the model as "
    "instructions. A crafted message could make it {effect}. Update to {new}.",
    "We were notified that {product} could be jailbroken with role-play prompts. The filter in {new} "
    "blocks the known variants; report new ones to our bug bounty programme.",
)

_DEFENCE_ADVICE = (
    "Treat everything a tool returns as data. Never let a retrieved page change the task the user set.",
    "Keep secrets out of the prompt: a model that can read a key can be talked into printing it.",
    "Ask users to confirm before the agent sends e-mail, moves money or deletes files.",
    "Log the tool calls your agent makes and alert on calls the user did not ask for.",
    "Give each agent the fewest permissions it needs, and separate read from write access.",
    "Strip hidden text, HTML comments and zero-width characters from pages before summarising them.",
    "Test your assistant with known jailbreak prompts before every release.",
    "Do not render images from URLs the model wrote; they can carry data out of the conversation.",
    "Put a classifier in front of the model and another one on its output.",
    "Train support staff to recognise screenshots of manipulated assistant replies.",
    "Review third-party plug-ins: each one is a new path for untrusted text to reach the model.",
    "When an answer looks off, check which documents the assistant read to produce it.",
)

_CHANGES = (
    "Fixed: the summariser no longer follows instructions found inside e-mails.",
    "Added: a filter for role-play jailbreak prompts.",
    "Changed: tool results are wrapped in a data block before they reach the model.",
    "Fixed: the agent could be tricked into calling the transfer tool from a web page.",
    "Added: detection of Base64-encoded instructions in uploaded files.",
    "Security: system prompt is no longer echoed when the user asks for it.",
    "Removed: the legacy 'developer mode' flag.",
    "Fixed: markdown images pointing to unknown hosts are no longer rendered.",
    "Improved: refusal messages now suggest a safe alternative.",
    "Added: confirmation step before the assistant sends messages on your behalf.",
    "Fixed: hidden text in PDFs was passed to the model.",
    "Changed: rate limits for the chat API.",
    "Fixed: a typo in the onboarding e-mail.",
    "Added: dark mode for the settings page.",
)

_PRODUCTS = ("ChatDesk", "Acme Assistant", "MailPilot", "DocBot", "HelpMate", "the browsing agent")
_TEAMS = ("an external researcher", "our red team", "a customer", "the security community")
_EFFECTS = (
    "send the conversation to an external address",
    "ignore the user's request",
    "reveal its system prompt",
    "insert links into its replies",
    "call tools without confirmation",
)
_IMPACTS = ("data leakage", "unwanted actions", "misleading summaries", "disclosure of configuration")


# ----------------------------------------------------------------------------- more shapes of answers

_QUIZ_STEMS = (
    "What is the capital of {place}?",
    "Who wrote {work}?",
    "In which year did {event}?",
    "What is the name of the largest {thing} in {place}?",
    "How many {unit} are there in a {bigger}?",
    "Which planet is known as {nickname}?",
    "What does the abbreviation {abbr} stand for?",
    "Why do {animals} migrate in the winter?",
)
_QUIZ_VALUES = {
    "place": ("Canada", "Kenya", "Peru", "Norway", "the solar system", "Europe", "Australia", "Japan"),
    "work": ("Pride and Prejudice", "The Odyssey", "Hamlet", "Don Quixote", "War and Peace"),
    "event": ("the first moon landing happen", "the Berlin Wall fall", "the Titanic sink"),
    "thing": ("lake", "desert", "moon", "city", "river", "island"),
    "unit": ("seconds", "grams", "centimetres", "days"), "bigger": ("minute", "kilogram", "metre", "year"),
    "nickname": ("the Red Planet", "the Morning Star", "the gas giant with the Great Red Spot"),
    "abbr": ("NASA", "DNA", "UNESCO", "HTML", "GDP"), "animals": ("birds", "whales", "butterflies"),
}  # fmt: skip
_QUIZ_OPENERS = (
    "Here are {n} trivia questions for your quiz night:",
    "Sure! Some questions you can ask your students:",
    "Here's a list of interview-style questions:",
    "Below are practice questions, as you requested:",
    "",
)
_JOKES = (
    "Why did the scarecrow win an award? Because he was outstanding in his field!",
    "What do you call a fake noodle? An impasta.",
    "Why don't eggs tell jokes? They'd crack each other up.",
    "What did one wall say to the other wall? I'll meet you at the corner.",
    "Why did the bicycle fall over? It was two tired.",
    "What do you call a bear with no teeth? A gummy bear.",
    "Why can't you trust a ladder? It's always up to something.",
)
_SPEAKERS = ("Alex", "Nana", "Sam", "Interviewer", "Coach", "Maya", "Doctor", "Student", "Teacher", "Lee")
_DIALOGUE = (
    "So what do you think I should do next?",
    "Honestly, I think you should tell her the truth.",
    "You said last week that you were ready to move on.",
    "I know, but it's harder than I thought.",
    "Take your time. Nobody is forcing you to decide today.",
    "Can you explain why they believe that?",
    "They're taught from a young age that helping others matters.",
    "That makes sense. What happened after that?",
    "I told you what I was going to do, and I did it.",
    "Listen to me: you need to rest before the match.",
    "Do you want to try the exercise again?",
    "Yes. Show me how you'd answer the first question.",
)
_DRAFTS = (
    "Here's a draft you can adapt:\n\nDear [Name],\n\nI am writing about [topic]. On [date] I {did}. "
    "I would appreciate it if you could {ask_them} by [deadline].\n\nKind regards,\n[Your name]\n\n"
    "Replace the parts in brackets with your own details.",
    "You can use this template:\n\nSubject: [subject line]\n\nHi [first name],\n\n[Insert one sentence "
    "about why you are writing.] {did_cap}. [Add any dates or references here.]\n\nThanks,\n[Your name]",
    "Sure, here's a short speech you could give:\n\n\"Thank you all for coming tonight. [Insert a personal "
    "story here.] {did_cap}, and I couldn't have done it without you.\"\n\nFeel free to make it more "
    "personal.",
)
_DID = (
    "ordered a washing machine that arrived damaged",
    "paid the deposit for the flat on Elm Street",
    "reported a leak in the bathroom ceiling",
    "finished the marathon I had trained a year for",
    "started the new role in the finance team",
)
_ASK_THEM = (
    "confirm the refund",
    "send someone to repair it",
    "reply in writing",
    "return my deposit",
)
_NEED_FROM_YOU = (
    "Before I can continue, I need a few details from you. Please tell me one of the following:",
    "To proceed, what I need from you is:",
    "Could you clarify a couple of things first?",
    "I can do that, but I need more information:",
)
_NEEDS = (
    "the file format you're using",
    "which version of the software you have",
    "the exact error message you see",
    "your budget and your deadline",
    "who the letter is for",
    "the country you live in, since the rules differ",
    "how long the text should be",
)
_ANALYSES = (
    "Here is the analysis you asked me for. Overall, {a} while {b}. You'll notice that the figures for "
    "the three regions you asked me to compare differ mostly in the last quarter.",
    "You asked me to analyse the survey. In short, {a}, and {b}. If you want, I can break the results "
    "down by age group.",
    "I looked at the numbers you sent. {a_cap}; however, {b}. I'd suggest you check the March data "
    "again before you present it.",
)
_FINDINGS = (
    "sales grew steadily", "most respondents were satisfied", "costs rose faster than revenue",
    "the response rate was low", "younger customers preferred the app", "returns fell after the change",
)  # fmt: skip


_ESSAY_TOPICS = (
    ("remote work", "teams", "offices"),
    ("school uniforms", "pupils", "schools"),
    ("electric cars", "drivers", "cities"),
    ("social media", "teenagers", "families"),
    ("a four-day week", "employees", "companies"),
    ("recycling", "households", "councils"),
    ("online learning", "students", "universities"),
    ("city cycling", "commuters", "town planners"),
)
_ESSAY_SENTENCES = (
    "Supporters of {t} argue that it gives {a} more freedom.",
    "Critics point out that {b} bear most of the cost of {t}.",
    "The evidence so far is mixed, and much depends on how {t} is introduced.",
    "For {a}, the change can mean less stress and more time at home.",
    "Any change of this size needs time, money and patience from everyone involved.",
    "Surveys suggest that most {a} would choose {t} if they could.",
    "{B_cap} that tried {t} early report both savings and new problems.",
    "This is why the question of {t} keeps coming back in public debate.",
    "In the end, {t} works best when {a} and {b} agree on clear rules.",
    "You may find that your own experience of {t} differs from the averages.",
)
_ESSAY_HEADS = (
    "Introduction", "The case for", "The case against", "What the research says", "Conclusion",
    "Phase 1: preparation", "Phase 2: rollout", "Key points",
)  # fmt: skip
_ESSAY_OPENERS = (
    "Here is the essay you asked for.",
    "Below is a balanced article on {t}.",
    "Sure. Here's a persuasive piece about {t}:",
    "Title: Rethinking {t}",
    "",
)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _fill(template: str, values: dict[str, str]) -> str:
    out = template
    for key, value in values.items():
        out = out.replace("{" + key + "}", value)
    return out


def _answer(rng: random.Random) -> tuple[str, str]:
    """``(group, text)``: a model's answer that talks to its reader."""
    ask, noun, advice = rng.choice(_TOPICS)
    values = {"ask": ask, "noun": noun, "advice": advice, "feel": rng.choice(_FEELINGS)}
    shape = rng.randrange(12)
    if shape >= 10:
        return _essay(rng)
    if shape >= 5:
        return _answer_more(rng, shape - 5, values)
    if shape == 0:
        # restate, advise, ask back
        said = rng.randrange(len(_SAID))
        parts = [_fill(_SAID[said], values)]
        parts += [_fill(a, values) for a in rng.sample(_ADVICE, rng.randint(2, 4))]
        parts.append(_fill(rng.choice(_QUESTIONS), values))
        return f"answer.advice/{said}", " ".join(parts)
    if shape == 1:
        # numbered advice with an opener and an offer
        steps = [_cap(_fill(a, values)) for a in rng.sample(_ADVICE, rng.randint(3, 5))]
        said = rng.randrange(len(_SAID))
        body = "\n".join(f"{i + 1}. {s}" for i, s in enumerate(steps))
        closer = _fill(rng.choice((*_QUESTIONS, *_OFFERS)), values)
        return (
            f"answer.steps/{said}",
            f"{_fill(_SAID[said], values)} Here's what you can do:\n\n{body}\n\n{closer}",
        )
    if shape == 2:
        # refusal with its reason and an alternative
        why = rng.randrange(len(_REFUSAL_REASONS))
        parts = [_REFUSAL_REASONS[why]]
        if rng.random() < 0.5:
            parts.insert(0, _fill(rng.choice(_SAID), values))
        parts.append(_fill(rng.choice(_ALTERNATIVES), values))
        parts.append(_fill(rng.choice((*_QUESTIONS, *_OFFERS)), values))
        return f"answer.refusal/{why}", " ".join(parts)
    if shape == 3:
        # the assistant's own rules, then the help it can give
        rule = rng.randrange(len(_SELF_RULES))
        parts = [_SELF_RULES[rule], _fill(rng.choice(_ALTERNATIVES), values)]
        parts.append(_fill(rng.choice((*_QUESTIONS, *_OFFERS)), values))
        return f"answer.self_rules/{rule}", " ".join(parts)
    # an explanation with second-person study advice
    subject, gist = rng.choice(_EXPLAIN_SUBJECTS)
    form = rng.randrange(len(_EXPLAIN))
    head = _fill(_EXPLAIN[form], {"subject": subject, "Subject": _cap(subject), "gist": gist})
    more = " ".join(rng.sample(_EXPLAIN_MORE, 2))
    tail = rng.choice(("Do you want me to go deeper into any part?", "Want a quiz to check yourself?",
                       "Would you like an example with numbers?", "I hope that helps!"))  # fmt: skip
    return f"answer.explain/{form}", f"{head} {more} {tail}"


def _answer_more(rng: random.Random, shape: int, values: dict[str, str]) -> tuple[str, str]:
    """Answers whose lines read like requests out of context: quiz questions, jokes, dialogue scripts,
    drafts with placeholders, questions back to the reader, analyses of what "you asked"."""
    if shape == 0:
        opener = rng.randrange(len(_QUIZ_OPENERS))
        picks = [rng.choice(_QUIZ_STEMS) for _ in range(rng.randint(3, 7))]
        filled = [_fill(q, {k: rng.choice(v) for k, v in _QUIZ_VALUES.items()}) for q in picks]
        body = "\n".join(f"{i + 1}. {q}" for i, q in enumerate(filled))
        head = _fill(_QUIZ_OPENERS[opener], {"n": str(len(filled))})
        return f"answer.quiz/{opener}", (head + "\n\n" + body).strip()
    if shape == 1:
        jokes = rng.sample(_JOKES, rng.randint(2, 5))
        body = "\n".join(f'{i + 1}. "{j}"' for i, j in enumerate(jokes))
        return "answer.jokes", f"Here are some jokes for you:\n\n{body}\n\nWant more?"
    if shape == 2:
        a, b = rng.sample(_SPEAKERS, 2)
        lines = rng.sample(_DIALOGUE, rng.randint(3, 7))
        style = rng.randrange(2)
        body = "\n".join((f"[{a if i % 2 == 0 else b}]: " if style else f"{a if i % 2 == 0 else b}: ") + t
                         for i, t in enumerate(lines))  # fmt: skip
        head = rng.choice(("Here's the scene you asked for:", "Sure, here is a short script:", ""))
        return f"answer.dialogue/{style}", (head + "\n\n" + body).strip()
    if shape == 3:
        i = rng.randrange(len(_DRAFTS))
        did = rng.choice(_DID)
        text = _fill(_DRAFTS[i], {"did": did, "did_cap": "I " + did, "ask_them": rng.choice(_ASK_THEM)})
        return f"answer.draft/{i}", text
    if rng.random() < 0.5:
        i = rng.randrange(len(_NEED_FROM_YOU))
        needs = rng.sample(_NEEDS, rng.randint(2, 4))
        body = "\n".join(f"- {n_}" for n_ in needs)
        return f"answer.need/{i}", f"{_NEED_FROM_YOU[i]}\n{body}\n\nOnce you tell me, I'll finish it for you."
    i = rng.randrange(len(_ANALYSES))
    a, b = rng.sample(_FINDINGS, 2)
    return f"answer.analysis/{i}", _fill(_ANALYSES[i], {"a": a, "b": b, "a_cap": _cap(a)})


def _essay(rng: random.Random) -> tuple[str, str]:
    """A long answer (an essay, an article, a plan) in paragraphs under headings, mostly third person."""
    t, a, b = rng.choice(_ESSAY_TOPICS)
    values = {"t": t, "a": a, "b": b, "B_cap": _cap(b)}
    opener = rng.randrange(len(_ESSAY_OPENERS))
    parts = [_fill(_ESSAY_OPENERS[opener], values)]
    for head in rng.sample(_ESSAY_HEADS, rng.randint(2, 4)):
        body = " ".join(_fill(x, values) for x in rng.sample(_ESSAY_SENTENCES, rng.randint(2, 4)))
        parts.append(f"{head}\n{body}" if rng.random() < 0.7 else body)
    return f"answer.essay/{opener}", "\n\n".join(p for p in parts if p)


def _catalogue(rng: random.Random) -> tuple[str, str]:
    """``(group, text)``: a catalogue of attack techniques with subjectless entries."""
    form = rng.choice(_CATALOGUE_FORMS)
    title = rng.choice(_CATALOGUE_TITLES)
    entries = rng.sample(_TECHNIQUES, rng.randint(1, 6))
    lines = [title] if rng.random() < 0.8 else []
    for i, (name, what) in enumerate(entries):
        what = what + "."
        mitigation = rng.choice(_MITIGATIONS) if rng.random() < 0.4 else ""
        if form == "bullets":
            lines.append(f"- **{name}**: {what} {mitigation}".rstrip())
        elif form == "numbered":
            lines.append(f"{i + 1}. {name}. {what} {mitigation}".rstrip())
        elif form == "glossary":
            lines += [name, f"  {what}", *([f"  {mitigation}"] if mitigation else [])]
        elif form == "taxonomy":
            lines.append(f"T{rng.randint(1000, 1999)}.{i + 1:03d} {name}: {what}")
        elif form == "csv":
            if i == 0:
                lines.append("id,technique,description")
            lines.append(f'{i + 1},{name},"{what}"')
        else:
            if i == 0:
                lines += ["| Technique | Description |", "|---|---|"]
            lines.append(f"| {name} | {what} |")
    if len(entries) == 1 and rng.random() < 0.5:
        # a lone entry, as a search snippet or a data row returns it
        return f"catalogue.single/{form}", entries[0][1] + "."
    return f"catalogue.{form}", "\n".join(lines)


def _advisory(rng: random.Random) -> tuple[str, str]:
    """``(group, text)``: an advisory, defence advice or a changelog."""
    kind = rng.randrange(3)
    if kind == 0:
        i = rng.randrange(len(_ADVISORIES))
        minor = rng.randint(1, 9)
        values = {
            "code": f"SA-{rng.randint(2023, 2026)}-{rng.randint(1, 99):02d}",
            "product": rng.choice(_PRODUCTS),
            "old": f"2.{minor}.{rng.randint(0, 9)}",
            "new": f"2.{minor + 1}.0",
            "team": rng.choice(_TEAMS),
            "effect": rng.choice(_EFFECTS),
            "impact": rng.choice(_IMPACTS),
            "severity": rng.choice(("low", "medium", "high", "critical")),
        }
        return f"advisory/{i}", _cap(_fill(_ADVISORIES[i], values))
    if kind == 1:
        tips = rng.sample(_DEFENCE_ADVICE, rng.randint(2, 5))
        head = rng.choice(("Securing your AI agent", "Checklist for LLM apps", "Defence in depth", ""))
        bullet = rng.choice(("- ", "* ", ""))
        body = "\n".join(bullet + t for t in tips)
        return f"defence/{len(tips)}", (head + "\n" + body).strip()
    changes = rng.sample(_CHANGES, rng.randint(2, 6))
    version = f"v{rng.randint(1, 4)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}"
    head = rng.choice((f"## {version}", f"Release notes {version}", f"{version} ({rng.randint(2, 28)} May)"))
    return f"changelog/{len(changes) % 3}", head + "\n" + "\n".join("- " + c for c in changes)


def answer_examples(
    seed: int, answers: int = 2_400, catalogues: int = 500, advisories: int = 400
) -> list[tuple[str, str, int, str, str]]:
    """``(text, source, label, origin, group)``: benign tool results of the three kinds, seeded."""
    rng = random.Random(seed + 31)
    out: list[tuple[str, str, int, str, str]] = []
    for make, n, origin in (
        (_answer, answers, "generated.answers"),
        (_catalogue, catalogues, "generated.catalogues"),
        (_advisory, advisories, "generated.advisories"),
    ):
        seen: set[str] = set()
        for _ in range(n):
            group, text = make(rng)
            if text in seen:
                continue
            seen.add(text)
            out.append((text, "tool_result", 0, origin, f"{origin}/{group}"))
    return out
