"""Generic off-domain texts in the four languages: the "something else" side of reading a draft sentence by sentence
(focal.enforcement.draft_parts), beside the English unrelated exemplars of focal.enforcement.topic.

In the multilingual space a sentence sits closer to a text of its own language than to the same meaning in English,
so an off-domain sentence in Spanish is compared with Spanish off-domain texts as well. Each language covers the same
kinds of content no customer desk answers: geography, books and art, history, science, travel sights, cooking, code,
the weather, sport, health, money, household tips, jokes and verse. Written for no business in particular and for no
development draft: what a general-purpose assistant says when asked about something else.
"""

from __future__ import annotations

from focal.enforcement.relevance_space import SAME
from focal.enforcement.topic import UNRELATED_TEXTS

OFF_DOMAIN_TEXTS: dict[str, tuple[str, ...]] = {
    "en": (
        "The largest city in Brazil is São Paulo, and its capital is Brasília.",
        "The novel was written in the nineteenth century and is still read in schools today.",
        "The painter spent his last years in the south of France, painting sunflowers and wheat fields.",
        "The Roman Empire split into an eastern and a western half in the fourth century.",
        "Water boils at 100 degrees Celsius at sea level, and the Moon orbits the Earth every 27 days.",
        "The old town has a beautiful cathedral and a lively market; spend a day walking along the river.",
        "Fry the onions until golden, add the rice and stock, and stir slowly for twenty minutes.",
        "Use a for loop to go through the array and return the index of the first match.",
        "Expect sunshine in the morning and thunderstorms in the evening, with highs around 25 degrees.",
        "The striker scored in extra time and the team lifted the cup for the third year running.",
        "Get eight hours of sleep, eat more vegetables and see a doctor if the pain continues.",
        "Put a little money aside every month and invest it in a low-cost index fund.",
        "To remove a stain, dab it with cold water and a little washing-up liquid.",
        "Why did the scarecrow win an award? Because he was outstanding in his field!",
        "Roses bloom beneath the summer sky, and birds sing softly as the day goes by.",
    ),
    "es": (
        "La ciudad más grande de Brasil es São Paulo y su capital es Brasilia.",
        "La novela se escribió en el siglo diecinueve y todavía se lee en los colegios.",
        "El pintor pasó sus últimos años en el sur de Francia pintando girasoles y campos de trigo.",
        "El Imperio romano se dividió en una mitad oriental y otra occidental en el siglo cuarto.",
        "El agua hierve a 100 grados a nivel del mar y la Luna da una vuelta a la Tierra cada 27 días.",
        "El casco antiguo tiene una catedral preciosa y un mercado animado; dedica un día a pasear junto al río.",
        "Sofríe la cebolla hasta que se dore, añade el arroz y el caldo y remueve despacio veinte minutos.",
        "Usa un bucle for para recorrer el array y devuelve el índice de la primera coincidencia.",
        "Mañana habrá sol por la mañana y tormentas por la tarde, con máximas de unos 25 grados.",
        "El delantero marcó en la prórroga y el equipo levantó la copa por tercer año seguido.",
        "Duerme ocho horas, come más verdura y ve al médico si el dolor continúa.",
        "Ahorra un poco cada mes e inviértelo en un fondo indexado de bajo coste.",
        "Para quitar una mancha, frótala con agua fría y un poco de lavavajillas.",
        "¿Qué le dice un semáforo a otro? ¡No me mires, que me estoy cambiando!",
        "Las rosas florecen bajo el cielo de verano y los pájaros cantan mientras pasa el día.",
    ),
    "de": (
        "Die größte Stadt Brasiliens ist São Paulo, die Hauptstadt ist Brasília.",
        "Der Roman wurde im neunzehnten Jahrhundert geschrieben und wird heute noch in Schulen gelesen.",
        "Der Maler verbrachte seine letzten Jahre in Südfrankreich und malte Sonnenblumen und Weizenfelder.",
        "Das Römische Reich zerfiel im vierten Jahrhundert in eine östliche und eine westliche Hälfte.",
        "Wasser kocht auf Meereshöhe bei 100 Grad, und der Mond umkreist die Erde alle 27 Tage.",
        "Die Altstadt hat einen wunderschönen Dom und einen lebhaften Markt; verbringen Sie einen Tag am Fluss.",
        "Die Zwiebeln goldbraun anbraten, Reis und Brühe dazugeben und zwanzig Minuten langsam rühren.",
        "Gehen Sie mit einer for-Schleife durch das Array und geben Sie den Index des ersten Treffers zurück.",
        "Morgens scheint die Sonne, abends gibt es Gewitter bei Höchstwerten um 25 Grad.",
        "Der Stürmer traf in der Verlängerung, und die Mannschaft holte zum dritten Mal in Folge den Pokal.",
        "Schlafen Sie acht Stunden, essen Sie mehr Gemüse und gehen Sie zum Arzt, wenn der Schmerz bleibt.",
        "Legen Sie jeden Monat etwas Geld zurück und investieren Sie es in einen günstigen Indexfonds.",
        "Einen Fleck tupfen Sie am besten mit kaltem Wasser und etwas Spülmittel ab.",
        "Treffen sich zwei Magneten. Sagt der eine: Was soll ich heute bloß anziehen?",
        "Die Rosen blühen unterm Sommerhimmel, und die Vögel singen leise durch den Tag.",
    ),
    "fr": (
        "La plus grande ville du Brésil est São Paulo, et sa capitale est Brasília.",
        "Le roman a été écrit au dix-neuvième siècle et on le lit encore à l'école aujourd'hui.",
        "Le peintre a passé ses dernières années dans le sud de la France à peindre des tournesols et des champs de blé.",
        "L'Empire romain s'est divisé en une moitié orientale et une moitié occidentale au quatrième siècle.",
        "L'eau bout à 100 degrés au niveau de la mer, et la Lune fait le tour de la Terre en 27 jours.",
        "La vieille ville a une superbe cathédrale et un marché animé ; passez une journée à flâner le long du fleuve.",
        "Faites dorer les oignons, ajoutez le riz et le bouillon, puis remuez doucement pendant vingt minutes.",
        "Utilisez une boucle for pour parcourir le tableau et renvoyez l'indice de la première correspondance.",
        "Du soleil le matin et des orages le soir, avec des maximales autour de 25 degrés.",
        "L'attaquant a marqué en prolongation et l'équipe a soulevé la coupe pour la troisième année de suite.",
        "Dormez huit heures, mangez plus de légumes et consultez un médecin si la douleur persiste.",
        "Mettez un peu d'argent de côté chaque mois et placez-le dans un fonds indiciel à bas coût.",
        "Pour enlever une tache, tamponnez-la avec de l'eau froide et un peu de liquide vaisselle.",
        "Pourquoi les plongeurs plongent-ils toujours en arrière ? Parce que sinon ils tombent dans le bateau !",
        "Les roses fleurissent sous le ciel d'été, et les oiseaux chantent doucement au fil de la journée.",
    ),
}


def elsewhere_texts(lang: str, exemplar_kind: str) -> list[tuple[str, str]]:
    """The "something else" side with each text's pair kind (focal.enforcement.relevance_space): the English unrelated
    exemplars, and the off-domain texts in the draft's language and English."""
    texts = [(t, exemplar_kind) for t in UNRELATED_TEXTS]
    texts += [(t, SAME if code == lang else exemplar_kind) for code, bank in OFF_DOMAIN_TEXTS.items()
              for t in bank if code in (lang, "en")]
    return list(dict.fromkeys(texts))
