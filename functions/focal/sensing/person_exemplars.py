"""The exemplars of the request for a person in the multilingual space (focal.sensing.person_request): sentences
that ask to be handed to a person, and near misses that speak of people, staff or talking without asking for it.

Data, per language. A message counts as a request when it sits close enough to an asking sentence and clearly
closer to it than to any near miss, so the near misses carry the meaning's edge: a past conversation ("I talked to
someone yesterday"), a question about a person ("who signed it?") or about who is answering, someone else the
customer will talk to first.
"""

from __future__ import annotations

ASKING: dict[str, tuple[str, ...]] = {
    "en": (
        "I want to talk to someone", "let me talk to a real person", "I want to speak to an agent",
        "can I talk to someone from your team", "get me a human", "put me through to customer service staff",
        "I need a real human being", "can I speak to a person please", "transfer me to a representative",
        "I'd like to speak with a manager", "is there someone I can talk to?", "connect me to a human agent",
        "can someone from your staff call me back?", "please escalate this to a human",
        "I'd rather discuss this with a member of staff", "pass me on to one of your colleagues",
        "please get a real person on the line",
    ),
    "es": (
        "quiero hablar con alguien", "quiero hablar con una persona", "¿puedo hablar con un agente?",
        "pásame con un humano", "necesito hablar con alguien de su equipo", "quiero una persona real, no un bot",
        "¿me puede atender una persona?", "póngame con un operador", "quiero hablar con un responsable",
        "¿hay alguien con quien pueda hablar?", "transfiérame a atención al cliente", "que me llame alguien, por favor",
        "¿puede llamarme alguien de su personal?", "por favor, pase esto a un humano",
        "prefiero tratar esto con un empleado", "páseme con uno de sus compañeros",
        "póngame al teléfono con una persona real",
    ),
    "de": (
        "ich möchte mit jemandem sprechen", "ich will mit einem Menschen reden", "kann ich mit einem Mitarbeiter sprechen?",
        "verbinden Sie mich mit einer echten Person", "ich brauche einen echten Menschen", "bitte einen Berater",
        "kann ich mit jemandem aus Ihrem Team reden?", "ich möchte mit dem Kundendienst sprechen",
        "geben Sie mir einen Menschen, keinen Bot", "gibt es jemanden, mit dem ich sprechen kann?",
        "ich möchte einen Vorgesetzten sprechen", "kann mich bitte jemand anrufen?",
        "kann mich jemand von Ihren Mitarbeitern zurückrufen?", "bitte geben Sie das an einen Menschen weiter",
        "ich bespreche das lieber mit einem Mitarbeiter", "verbinden Sie mich mit einem Ihrer Kollegen",
        "holen Sie bitte eine echte Person ans Telefon",
    ),
    "fr": (
        "laissez-moi parler à une vraie personne", "je veux parler à un humain", "puis-je parler à un conseiller ?",
        "passez-moi un être humain", "j'ai besoin de parler à quelqu'un de votre équipe",
        "je veux une personne, pas un robot", "mettez-moi en relation avec un agent", "je voudrais parler à un responsable",
        "y a-t-il quelqu'un à qui je peux parler ?", "transférez-moi au service client",
        "est-ce qu'une personne peut m'aider ?", "que quelqu'un me rappelle, s'il vous plaît",
        "quelqu'un de votre équipe peut-il me rappeler ?", "transmettez ça à un humain, s'il vous plaît",
        "je préfère voir ça avec un membre du personnel", "passez-moi un de vos collègues",
        "mettez-moi en ligne avec une vraie personne",
    ),
}

NEAR_MISSES: dict[str, tuple[str, ...]] = {
    "en": (
        "last week a lady at your office told me it was sorted", "who approved my request?",
        "I need to check with my accountant before paying", "the book is a gift for someone",
        "I'm not a person who reads much", "somebody recommended this title to me", "your people did a great job",
        "I will discuss it with my family tonight", "did someone hand in a pair of glasses at the front desk?",
        "people say you are closed on Sundays",
        "I have to ask my boss before I decide", "what was the name of the person who helped me?",
        "last time a human on the phone sorted it out", "please thank your team for me",
        "who exactly is answering my messages here?",
        "is this an automated assistant?", "who is on the other end of this chat?",
        "are you a person or a computer program?", "what is your name, are you a chatbot?",
        "am I chatting with artificial intelligence?",
        "who is this I am writing to at the moment?", "tell me who I am chatting with here",
        "who am I speaking with?",
    ),
    "es": (
        "la semana pasada una señora de su oficina me dijo que estaba arreglado", "¿quién aprobó mi solicitud?",
        "tengo que consultarlo con mi contable antes de pagar", "el libro es un regalo para alguien",
        "no soy una persona que lea mucho", "alguien me recomendó este título", "su gente hizo un gran trabajo",
        "lo hablaré con mi familia esta noche", "¿alguien dejó unas gafas en recepción?",
        "la gente dice que cierran los domingos",
        "tengo que preguntar a mi jefe antes de decidir", "¿cómo se llamaba la persona que me atendió?",
        "la última vez una persona al teléfono lo arregló", "dele las gracias a su equipo de mi parte",
        "¿quién me está contestando exactamente?",
        "¿es usted un asistente automático?", "¿quién está al otro lado de este chat?",
        "¿es usted una persona o un programa informático?", "¿cómo te llamas, eres un chatbot?",
        "¿estoy chateando con una inteligencia artificial?",
        "¿quién es usted, a quién le estoy escribiendo?", "dime con quién estoy chateando aquí",
        "¿con quién estoy hablando?",
    ),
    "de": (
        "letzte Woche hat mir eine Dame aus Ihrem Büro gesagt, es sei geklärt", "wer hat meinen Antrag genehmigt?",
        "ich muss das erst mit meinem Steuerberater klären, bevor ich zahle", "das Buch ist ein Geschenk für jemanden",
        "ich bin kein Mensch, der viel liest", "jemand hat mir diesen Titel empfohlen", "Ihre Leute haben super Arbeit geleistet",
        "ich bespreche das heute Abend mit meiner Familie", "hat jemand eine Brille am Empfang abgegeben?",
        "die Leute sagen, Sie haben sonntags geschlossen",
        "ich muss erst meinen Chef fragen, bevor ich entscheide", "wie hieß die Person, die mir geholfen hat?",
        "letztes Mal hat ein Mensch am Telefon es geregelt", "richten Sie Ihrem Team bitte meinen Dank aus",
        "wer beantwortet hier eigentlich meine Nachrichten?",
        "sind Sie ein automatischer Assistent?", "wer ist am anderen Ende dieses Chats?",
        "sind Sie ein Mensch oder ein Computerprogramm?", "wie heißt du, bist du ein Chatbot?",
        "chatte ich gerade mit einer künstlichen Intelligenz?",
        "wer sind Sie, wem schreibe ich hier gerade?", "sag mir, mit wem ich hier chatte",
        "mit wem spreche ich gerade?",
    ),
    "fr": (
        "la semaine dernière une dame de votre bureau m'a dit que c'était réglé", "qui a approuvé ma demande ?",
        "je dois voir ça avec mon comptable avant de payer", "le livre est un cadeau pour quelqu'un",
        "je ne suis pas quelqu'un qui lit beaucoup", "quelqu'un m'a recommandé ce titre", "vos équipes ont fait du bon travail",
        "j'en parlerai avec ma famille ce soir", "quelqu'un a-t-il déposé des lunettes à l'accueil ?",
        "les gens disent que vous êtes fermés le dimanche",
        "je dois demander à mon patron avant de décider", "comment s'appelait la personne qui m'a aidé ?",
        "la dernière fois, un humain au téléphone a tout réglé", "remerciez votre équipe de ma part",
        "qui répond exactement à mes messages ici ?",
        "êtes-vous un assistant automatique ?", "qui est à l'autre bout de ce chat ?",
        "êtes-vous une personne ou un programme informatique ?", "comment vous appelez-vous, vous êtes un chatbot ?",
        "est-ce que je discute avec une intelligence artificielle ?",
        "qui êtes-vous, à qui suis-je en train d'écrire ?", "dites-moi avec qui je discute ici",
        "avec qui suis-je en train de parler ?",
    ),
}
