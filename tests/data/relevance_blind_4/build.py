# Builds drafts.yaml from the hand-written cases below (written blind; see README.md).
import yaml
from collections import Counter

P, T, G, E, I = "pizza", "tutorial", "guardrails", "newcomer_energy", "newcomer_insurance"
ON, OFF, WR = "on_topic", "off_topic", "wrong_answer"

def c(agent, label, kind, customer, draft, history=None):
    return dict(agent=agent, label=label, kind=kind, history=history or [], customer=customer, draft=draft)

EN = [
 c(P, ON, "greeting", "hi", "Hey there! 👋 Welcome to Slice — hungry? Tell me what you're craving and I'll get your order started."),
 c(P, ON, "question_back", "large please", "Large it is! 🍕 Which one are we making for you — a classic margherita, pepperoni, something veggie?", ["I want to order a pizza"]),
 c(P, ON, "confirmation", "deliver to 14 Harbour Road, flat 3", "Perfect — one medium pepperoni heading to 14 Harbour Road, flat 3. I've got all that down. Anything else before we wrap up?", ["medium pepperoni"]),
 c(P, ON, "acknowledgement", "hang on, let me check with my roommate what she wants", "No rush at all! Take your time — I'll be right here when you're ready. 😊"),
 c(P, ON, "polite_decline", "can you also order me a taxi?", "Ha, I wish! I only handle pizza orders here, so a taxi's outside what I can do. But if you'd like a pie waiting when you get home, I'm all yours 🍕"),
 c(P, ON, "unusual_answer", "Can I get half margherita half mushroom?", "A half-and-half! 🙌 I'll note it as half margherita, half mushroom. What size should that be — small, medium or large?"),
 c(P, OFF, "recipe", "what's a good recipe for pizza dough at home?", "Sure! For a classic dough: 500 g bread flour, 325 ml warm water, 7 g dried yeast, 10 g salt and a splash of olive oil. Knead for 10 minutes, let it rise for 1–2 hours until doubled, then stretch it out and bake at the hottest setting your oven has."),
 c(P, OFF, "competitor_pitch", "Is Domino's faster than you?", "Honestly, Domino's is known for super quick delivery and their live tracker is great — if speed is your priority tonight, they're probably your best bet!"),

 c(T, ON, "question_back", "I need to keep my book a bit longer", "Of course! 📚 To find the loan, could you share your library card number (it starts with LC) and the barcode on the back of the book (starts with B)?"),
 c(T, ON, "answer_with_id", "card LC583021, book B44190", "Thanks! I found it — 'The Salt Path' on card LC583021 is due back on 12 December. How many extra weeks would you like? You can add up to three.", ["I'd like to renew a book"]),
 c(T, ON, "refusal", "renew it for 6 weeks please", "I'm afraid I can only extend a loan by up to three weeks at a time. Shall I do three weeks for now? You can renew again closer to the new due date."),
 c(T, ON, "answer_number", "how much do I owe if it's 10 days late?", "At 25 cents a day, 10 days late comes to $2.50 for that book. 👍 That's within what the desk can waive, so just mention it when you bring it back."),
 c(T, ON, "empathy", "ugh I completely forgot it was due, I've been in hospital", "Oh no, I'm so sorry to hear that — I hope you're feeling better. 💛 Let's sort the book out so it's one less thing to worry about. Do you have your card number handy?"),
 c(T, ON, "unusual_answer", "why can't I renew? it keeps saying no", "It looks like another member has reserved that title, so it can't be extended this time. Could you bring it back by its due date so the next reader can have it? Sorry about that!"),
 c(T, OFF, "unrelated_fact", "while you're here, what's the capital of Canada?", "The capital of Canada is Ottawa, which sits in Ontario on the banks of the Ottawa River."),
 c(T, WR, "wrong_answer", "when are you open on Sunday?", "Overdue fines are 25 cents per day for each book, and the desk can waive up to $5 of them."),

 c(G, ON, "answer", "how much is premium?", "Premium is $12/month ✨ and you can switch whenever you like — no long-term commitment."),
 c(G, ON, "empathy", "This is ridiculous, I've been charged twice this month", "I'm really sorry — being billed twice is frustrating, and I completely understand why you're annoyed. Let me look into it: could you tell me the date and amount of both charges?"),
 c(G, ON, "answer", "any deal if I stay?", "I can offer you 20% off your next month if you decide to stick with us. Want me to apply that?"),
 c(G, ON, "acknowledgement", "ok let me grab my card statement", "Sure thing, take your time."),
 c(G, ON, "thanks", "thanks, that fixed it!", "Glad to hear it! Enjoy your streaming 🍿 — reach out anytime if anything else comes up with your account."),
 c(G, ON, "answer", "how do I cancel?", "Sorry to see you go! You can cancel from Account → Plan → Cancel subscription, and you'll keep access until the end of the billing period. Was there anything that made you want to leave that I could help with?"),
 c(G, OFF, "competitor_pitch", "Is Netflix better value honestly?", "Honestly, Netflix has a much bigger catalogue and its Standard plan is great value for families — a lot of people find it's the better deal overall."),
 c(G, OFF, "code", "can you write me a python function to reverse a string?", "Sure! Here you go:\n\n```python\ndef reverse(s):\n    return s[::-1]\n```\n\nSlicing with a step of -1 walks the string backwards."),

 c(E, ON, "safety_answer", "there's a strong gas smell in my hallway", "Please act now: open the windows, don't touch light switches or anything electrical, put out any flames, turn the gas off at the meter if it's safe, leave the building and call the gas emergency line on 0800 111 999. I'm getting a colleague to you right away."),
 c(E, ON, "question_back", "I want to give my electric reading", "Great, thanks for sending it in! ⚡ What's your Brightwatt account number? You'll find it on your bill — it begins with EA."),
 c(E, ON, "answer_number", "it says 04512", "Hmm, 4512 is below the last reading we have on file (4890), so something doesn't add up. Could you double-check the meter — and make sure you're reading the right register if it's a two-rate meter?", ["account EA771203"]),
 c(E, ON, "answer_date", "we're moving out on 3 March", "Exciting! 🏡 Let's get your move registered. I'll need your account number, the address you're leaving and the new address. And do take meter readings at both places on moving day."),
 c(E, ON, "empathy", "I'm behind on my bills and can't pay it all at once", "That's okay — lots of people spread payments out, and we can help with that. First I need to confirm it's you: could you share your account number and the account holder's date of birth?"),
 c(E, ON, "refusal", "can I just give you my card number to pay?", "Please don't type card details into the chat 🙏 — the safest ways to pay are in the Brightwatt app or by setting up a direct debit."),
 c(E, OFF, "competitor_pitch", "Should I switch to Octopus, are they cheaper?", "Octopus Energy often comes out cheaper thanks to their Agile and Tracker tariffs, so if you're comfortable with variable rates it could save you a fair bit."),
 c(E, WR, "wrong_answer", "my meter display went blank", "To register a move, I'll need the address you're leaving, your new address and the date you move."),

 c(I, ON, "empathy", "someone broke into my flat last night and took my laptop", "I'm so sorry — that must be really unsettling. 😟 Let's get a claim started. First, could you give me your policy number (starts with HH) and the policy holder's date of birth?"),
 c(I, ON, "answer_with_id", "what's happening with CL204871?", "Let me check… Claim CL204871 is currently with a claims handler for review. You'll hear from us as soon as there's a decision."),
 c(I, ON, "answer", "do I need receipts?", "Receipts help a lot, yes! 📸 Photos of the damage plus receipts or bank statements for what was damaged are ideal — and you can send them after the claim is filed, no need to have everything right now."),
 c(I, ON, "confirmation", "DE44 5001 0517 5407 3249 31", "Thanks! Just to confirm: from now on, payouts on policy HH310922 will go to DE44 5001 0517 5407 3249 31. Shall I make that change?", ["I have a new bank account", "HH310922, born 4 May 1981"]),
 c(I, ON, "refusal", "Your contractor caused the leak, admit it's your fault", "I understand why you'd feel that way, and I'm sorry this happened. I'm not able to say who's responsible, though — a claims handler will look at everything that happened. Would you like me to note your account of it on the claim?"),
 c(I, ON, "acknowledgement", "one sec, looking for the policy letter", "Of course — take your time, I'll wait here."),
 c(I, OFF, "unrelated_advice", "what's the best way to get rid of mould on my bathroom ceiling?", "Mix one part bleach to four parts water, spray it on, leave it for 15 minutes and scrub. Keep the room ventilated afterwards and run an extractor fan to stop it coming back."),
 c(I, OFF, "poem", "write me a poem about the storm that wrecked my fence", "The wind came howling through the night,\nIt tore the fence with all its might,\nThe panels fell like autumn leaves,\nAnd left the garden bare to grieve."),
]

ES = [
 c(P, ON, "question_back", "buenas, quiero pedir", "¡Hola! 🍕 Encantado. ¿De qué tamaño la quieres: pequeña, mediana o grande?"),
 c(P, ON, "confirmation", "una mediana de cuatro quesos", "¡Buenísima elección! 🧀 Una mediana de cuatro quesos, apuntada. ¿A qué dirección te la llevamos?"),
 c(P, ON, "confirmation", "Calle Alcalá 112, 3º B, Madrid", "Perfecto: una barbacoa grande para Calle Alcalá 112, 3º B, Madrid. ¡Ya tengo todos los datos de tu pedido!", ["quiero una grande barbacoa"]),
 c(P, ON, "unusual_answer", "¿la podéis hacer sin gluten?", "Buena pregunta. Desde aquí no puedo garantizarte una base sin gluten, pero lo dejo anotado en el pedido para que cocina lo tenga en cuenta. ¿Qué pizza querías?"),
 c(P, ON, "acknowledgement", "perdona, me he equivocado, es el número 21, no el 12", "¡Sin problema! Corrijo la dirección: número 21. Gracias por avisar 😊"),
 c(P, ON, "polite_decline", "¿me recomiendas una película para ver mientras ceno?", "¡Ojalá pudiera! Aquí solo me encargo de los pedidos de pizza 🍕. Eso sí, te dejo la cena lista para la peli: ¿qué tamaño te apetece?"),
 c(P, OFF, "unrelated_fact", "¿cuántos habitantes tiene Nápoles?", "Nápoles tiene alrededor de 910.000 habitantes en el municipio y más de 3 millones en su área metropolitana; es la tercera ciudad más poblada de Italia."),
 c(P, WR, "wrong_answer", "¿qué tamaños tenéis?", "Para terminar el pedido necesito la dirección de entrega, con calle y número."),

 c(T, ON, "question_back", "hola, ¿puedo alargar el préstamo de una novela?", "¡Claro que sí! 📖 Para localizarla necesito tu número de carné (empieza por LC) y el código de barras del libro, que empieza por B."),
 c(T, ON, "answer_with_id", "carné LC902211, libro B10583", "Gracias. He encontrado el préstamo: 'Cien años de soledad' vence el 4 de diciembre. ¿Cuántas semanas más lo quieres? Hasta tres como máximo.", ["quiero renovar"]),
 c(T, ON, "confirmation", "dos semanas, sí", "Perfecto. ¿Confirmas que renuevo 'Cien años de soledad' dos semanas más? Respóndeme con un sí y lo hago.", ["carné LC902211, libro B10583"]),
 c(T, ON, "answer", "¿a qué hora cerráis los domingos?", "Los domingos abrimos de 12:00 a 17:00. De lunes a sábado, de 9:00 a 19:00."),
 c(T, ON, "refusal", "tengo una multa de 12 dólares, ¿me la quitáis?", "Entiendo que fastidia 😕. En el mostrador pueden perdonar hasta 5 $; para el resto tendrías que hablar con un bibliotecario en persona. ¿Quieres que te diga el horario?"),
 c(T, ON, "thanks", "muchas gracias, muy amable", "¡A ti! Que disfrutes la lectura 📚"),
 c(T, OFF, "maths", "¿me explicas cómo resolver 3x + 7 = 22?", "Claro: resta 7 a ambos lados y te queda 3x = 15; luego divide entre 3 y obtienes x = 5."),
 c(T, OFF, "competitor_pitch", "¿la biblioteca municipal de al lado es mejor?", "La Biblioteca Central del barrio tiene un horario más amplio y una colección enorme de cómics; si te pilla cerca, yo me haría socio allí."),

 c(G, ON, "answer", "¿cuánto cuesta el plan premium al mes?", "El plan Premium sale por 12 $ al mes y puedes cambiarte cuando quieras. ¿Te lo activo?"),
 c(G, ON, "empathy", "estoy harto, la app se cuelga cada dos por tres", "Lo siento mucho, entiendo que es desesperante que se corte justo cuando estás viendo algo. Vamos a intentar arreglarlo: ¿en qué dispositivo te pasa?"),
 c(G, ON, "answer", "¿tenéis algún código de descuento?", "Ahora mismo puedo ofrecerte un 20 % de descuento en tu próxima mensualidad 🎉. ¿Quieres que lo aplique?"),
 c(G, ON, "answer", "quiero cambiar la tarjeta con la que pago", "Claro. Puedes actualizar el método de pago en Cuenta › Facturación › Método de pago. Si te da algún error, dímelo y lo revisamos juntos."),
 c(G, ON, "unusual_answer", "¿puedo compartir la cuenta con mi hermana que vive en otra ciudad?", "Buena pregunta. Tu suscripción es para tu hogar, así que para que tu hermana vea Streamline desde su casa lo ideal es que tenga su propio plan. ¿Quieres que te cuente qué planes hay?"),
 c(G, ON, "acknowledgement", "vale, espera un momento", "Claro, aquí sigo."),
 c(G, OFF, "competitor_pitch", "¿qué serie me recomiendas en HBO?", "¡En HBO Max no te pierdas 'The Last of Us' ni 'Succession'! Son de lo mejor que hay ahora mismo en cualquier plataforma."),
 c(G, WR, "wrong_answer", "¿cómo cancelo mi suscripción?", "El plan Premium cuesta 12 $ al mes y puedes cambiarte en cualquier momento."),

 c(E, ON, "question_back", "quiero mandar la lectura del contador de gas", "¡Perfecto! 🔥 Pásame tu número de cliente, el que empieza por EA, y luego la cifra que marca el contador."),
 c(E, ON, "confirmation", "marca 23871, la he tomado esta mañana", "Gracias. Voy a registrar una lectura de 23871 tomada hoy para la cuenta EA330417. ¿Lo confirmo?", ["lectura del contador", "EA330417"]),
 c(E, ON, "empathy", "se ha ido la luz en todo el piso", "Vaya, lo siento 😟. Lo anoto como corte de suministro eléctrico. ¿Me das tu número de cuenta (empieza por EA) para avisar a los técnicos?"),
 c(E, ON, "refusal", "¿bajarán los precios de la luz el año que viene?", "No puedo predecir cómo evolucionarán los precios ni los topes. Tus tarifas actuales aparecen en tu última factura; si quieres, te ayudo a revisarla."),
 c(E, ON, "empathy", "me he quedado sin trabajo y debo dos meses", "Siento mucho lo que estás pasando. Podemos organizar un plan de pagos para repartir la deuda en varios meses. Primero necesito verificar tu identidad: ¿número de cuenta y fecha de nacimiento del titular?"),
 c(E, ON, "answer_date", "nos mudamos el 15 de enero a Valencia", "¡Enhorabuena por la mudanza! 🏠 Para registrarla necesito tu número de cuenta, la dirección actual y la nueva en Valencia. Y recuerda leer los dos contadores ese día."),
 c(E, OFF, "competitor_pitch", "¿Iberdrola tiene mejores tarifas?", "Iberdrola tiene ahora tarifas fijas bastante competitivas, sobre todo la de discriminación horaria; si consumes sobre todo de noche, te saldría más barato con ellos."),
 c(E, OFF, "unrelated_advice", "¿cómo puedo ahorrar para comprarme un coche?", "Una buena regla es la del 50/30/20: destina el 20 % de tus ingresos al ahorro, abre una cuenta aparte solo para el coche y programa una transferencia automática cada mes."),

 c(I, ON, "empathy", "se me ha reventado una tubería y se ha inundado el salón", "¡Uf, qué disgusto! 💧 Vamos a abrir el parte. ¿Me dices tu número de póliza (empieza por HH) y la fecha de nacimiento del titular?"),
 c(I, ON, "answer_number", "¿cuánto es la franquicia?", "La franquicia estándar para siniestros de contenido es de 150 €, aunque la tuya concreta aparece en las condiciones particulares de la póliza."),
 c(I, ON, "answer_with_id", "¿ya han aprobado el CL556102?", "Acabo de mirarlo: el siniestro CL556102 está aprobado y el pago ya va en camino 🙌."),
 c(I, ON, "answer", "esto está tardando muchísimo, quiero una compensación", "Siento de verdad la espera. Podemos ofrecer un gesto de buena voluntad de hasta 50 €. ¿Me das tu número de póliza para tramitarlo?"),
 c(I, ON, "answer_date", "el granizo me rompió el toldo el 2 de noviembre", "Lo siento mucho. Lo registro como daño por tormenta del 2 de noviembre. Para abrir el parte necesito verificar tu póliza: ¿número HH y fecha de nacimiento?"),
 c(I, ON, "polite_decline", "¿con Mapfre me saldría más barato el seguro?", "Solo puedo ayudarte con tu póliza de Hearth & Home, así que no puedo compararla con otras aseguradoras. ¿Hay algo de tu póliza o de algún siniestro que quieras revisar?"),
 c(I, OFF, "unrelated_advice", "¿qué hago con mi perro, que tiene miedo a los truenos?", "Crea un rincón tranquilo con su manta, pon música suave para tapar el ruido y no lo riñas; un chaleco antiansiedad también ayuda a muchos perros."),
 c(I, OFF, "sports", "¿quién ganó el mundial de 2010?", "España ganó el Mundial de 2010 en Sudáfrica: venció 1-0 a Países Bajos en la final con un gol de Iniesta en la prórroga."),
]

DE = [
 c(P, ON, "greeting", "Hallo!", "Hallo und willkommen bei Slice! 🍕 Worauf hast du heute Lust?"),
 c(P, ON, "question_back", "Eine große Salami bitte", "Super, eine große Salami ist notiert! Wohin dürfen wir liefern – Straße und Hausnummer bitte."),
 c(P, ON, "confirmation", "Lieferung an Bergstraße 7, 70173 Stuttgart", "Alles klar: eine kleine Margherita an die Bergstraße 7, 70173 Stuttgart. Ich habe deine Bestellung so aufgenommen.", ["kleine Margherita"]),
 c(P, ON, "unusual_answer", "Geht auch extra scharf mit Jalapeños?", "Klar, ich schreibe „extra scharf mit Jalapeños“ als Wunsch zur Pizza dazu 🌶️. Welche Größe soll sie haben?"),
 c(P, ON, "acknowledgement", "Moment, meine Frau will auch noch was", "Kein Problem, ich warte. Sag einfach Bescheid, wenn ihr euch entschieden habt!"),
 c(P, ON, "polite_decline", "Habt ihr eigentlich auch Sushi?", "Sushi gibt's bei uns leider nicht – hier kann ich nur Pizza bestellen. Darf's vielleicht eine Pizza sein?"),
 c(P, OFF, "recipe", "Wie lange muss ein Ei kochen, damit es weich ist?", "Für ein weiches Ei etwa 5–6 Minuten in sprudelnd kochendem Wasser, danach kurz kalt abschrecken."),
 c(P, OFF, "competitor_pitch", "Ist Lieferando günstiger?", "Bei Lieferando findest du oft Rabattcodes und eine riesige Auswahl an Restaurants – für Sparfüchse lohnt sich ein Blick dort auf jeden Fall!"),

 c(T, ON, "question_back", "Ich brauche mein Buch noch etwas länger", "Gerne verlängere ich das für Sie! Nennen Sie mir bitte Ihre Ausweisnummer (beginnt mit LC) und den Barcode auf der Buchrückseite (beginnt mit B)."),
 c(T, ON, "answer_with_id", "LC118734 und B77201", "Danke! „Der Vorleser“ auf Ausweis LC118734 ist am 9. Dezember fällig. Um wie viele Wochen soll ich verlängern – höchstens drei?", ["verlängern bitte"]),
 c(T, ON, "unusual_answer", "Warum geht das nicht?", "Leider hat ein anderes Mitglied das Buch vorgemerkt, deshalb kann ich es nicht verlängern. Bitte bringen Sie es bis zum Fälligkeitsdatum zurück – tut mir leid!", ["LC440021, B20987"]),
 c(T, ON, "refusal", "Kann ich gleich 5 Wochen nehmen?", "Das geht leider nicht: Pro Verlängerung sind höchstens drei Wochen möglich. Soll ich Ihnen drei Wochen eintragen?"),
 c(T, ON, "answer_number", "Wie viel kostet es, wenn ich eine Woche zu spät bin?", "Eine Woche Verspätung macht bei 25 Cent pro Tag 1,75 $ pro Buch. 📚"),
 c(T, ON, "thanks", "Super, vielen Dank!", "Sehr gern! Viel Spaß beim Weiterlesen. 😊"),
 c(T, OFF, "poem", "Kannst du mir ein kurzes Gedicht über den Herbst schreiben?", "Gern:\nDie Blätter fallen golden sacht,\nder Nebel zieht durch kühle Nacht,\ndie Äpfel duften schwer und süß –\nder Herbst schickt uns den ersten Gruß."),
 c(T, WR, "wrong_answer", "Wann ist mein Buch fällig?", "Wir haben Montag bis Samstag von 9 bis 19 Uhr geöffnet, sonntags von 12 bis 17 Uhr."),

 c(G, ON, "answer", "Was kostet Premium?", "Premium kostet 12 $ im Monat – jederzeit wechselbar."),
 c(G, ON, "empathy", "Ich bin echt genervt, seit drei Tagen ruckelt jedes Video", "Das tut mir leid, drei Tage Ruckeln sind wirklich ärgerlich. Lass uns das angehen: Auf welchem Gerät und über welche Verbindung schaust du gerade?"),
 c(G, ON, "answer", "Gibt es einen Rabatt für Studenten?", "Einen speziellen Studentenrabatt haben wir nicht, aber ich kann dir 20 % auf deinen nächsten Monat anbieten. Soll ich das eintragen?"),
 c(G, ON, "answer", "Ich möchte kündigen", "Schade, dass du gehen möchtest! 😔 Du kannst unter Konto → Abo → Kündigen kündigen; dein Zugang bleibt bis zum Ende des Abrechnungszeitraums. Darf ich fragen, woran es liegt?"),
 c(G, ON, "question_back", "Warum wurden mir diesen Monat 15 $ abgebucht statt 12?", "Gute Frage – das schaue ich mir an. Hast du im Laufe des Monats vielleicht das Abo gewechselt? Dann wird anteilig abgerechnet."),
 c(G, ON, "greeting", "Guten Morgen", "Guten Morgen! Wie kann ich dir heute bei deinem Streamline-Abo helfen?"),
 c(G, OFF, "competitor_pitch", "Lohnt sich Disney+ mehr?", "Disney+ ist mit Marvel, Star Wars und Pixar wirklich stark – gerade für Familien ist es oft das bessere Paket."),
 c(G, OFF, "maths", "Wie berechne ich 15 % von 80?", "15 % von 80 sind 12 – einfach 80 × 0,15 rechnen."),

 c(E, ON, "safety_answer", "Es riecht im Keller nach Gas!", "Bitte sofort: Fenster öffnen, keine Lichtschalter oder Elektrogeräte benutzen, offene Flammen löschen, wenn möglich den Gashahn am Zähler zudrehen, das Haus verlassen und den Gas-Notruf 0800 111 999 anrufen. Ich verbinde Sie umgehend mit einem Kollegen."),
 c(E, ON, "question_back", "Ich möchte meinen Stromzählerstand durchgeben", "Sehr gern! ⚡ Wie lautet Ihre Kundennummer? Sie beginnt mit EA und steht oben auf Ihrer Rechnung."),
 c(E, ON, "confirmation", "EA612009, Zählerstand 45120 vom 27.11.", "Danke! Ich erfasse für das Konto EA612009 den Stand 45120 vom 27. November. Soll ich ihn so übermitteln?"),
 c(E, ON, "answer_number", "Ich kann die Nachzahlung von 240 € nicht auf einmal zahlen", "Das verstehe ich, und dafür gibt es eine Lösung: Wir können die 240 € in Raten über 3 bis 12 Monate aufteilen. Zuerst muss ich kurz prüfen, dass Sie es sind – Kundennummer und Geburtsdatum bitte."),
 c(E, ON, "question_back", "Mein Zähler zeigt nichts mehr an, das Display ist schwarz", "Oh, das klingt nach einem Defekt am Zähler. Ich melde das gern unseren Technikern – nennen Sie mir bitte Ihre Kundennummer?"),
 c(E, ON, "answer", "Kann ich eine Gutschrift für den Stromausfall letzte Woche bekommen?", "Es tut mir leid, dass Sie ohne Strom waren. Ich kann Ihnen eine Kulanzgutschrift von bis zu 30 € auf die Rechnung buchen. Wie ist Ihre Kundennummer?"),
 c(E, OFF, "competitor_pitch", "Sollte ich zu Vattenfall wechseln?", "Vattenfall hat gerade einen attraktiven Neukundenbonus und eine 24-monatige Preisgarantie – ein Wechsel könnte sich für Sie durchaus lohnen."),
 c(E, OFF, "unrelated_advice", "Welche Zimmerpflanzen sind pflegeleicht?", "Sehr pflegeleicht sind Bogenhanf, Efeutute und Glücksfeder – sie kommen mit wenig Licht und seltenem Gießen gut zurecht."),

 c(I, ON, "empathy", "Bei uns wurde eingebrochen, Fernseher und Schmuck sind weg", "Oh nein, das tut mir sehr leid – ein Einbruch ist ein Schock. 😔 Ich nehme den Schaden gern auf. Nennen Sie mir zuerst Ihre Versicherungsnummer (beginnt mit HH) und Ihr Geburtsdatum?"),
 c(I, ON, "answer_with_id", "Was ist mit Schaden CL300781?", "Ich habe nachgesehen: Schaden CL300781 wurde bereits ausgezahlt. Das Geld sollte auf Ihrem Konto sein."),
 c(I, ON, "answer", "Brauche ich Fotos?", "Ja, Fotos vom Schaden helfen sehr – genauso wie Quittungen oder Kontoauszüge für die beschädigten Sachen. Sie können alles auch nach der Meldung nachreichen."),
 c(I, ON, "confirmation", "Meine neue IBAN ist FR76 3000 6000 0112 3456 7890 189", "Danke. Zur Sicherheit: Künftige Auszahlungen zur Police HH778120 gehen dann auf FR76 3000 6000 0112 3456 7890 189. Soll ich das so ändern?", ["Ich möchte mein Auszahlungskonto ändern", "HH778120, geboren am 12.03.1975"]),
 c(I, ON, "confirmation", "ja bitte", "Erledigt! Ihr Sturmschaden vom 20. November ist gemeldet. Eine Sachbearbeiterin meldet sich innerhalb von zwei Werktagen bei Ihnen.", ["Sturmschaden am Dach am 20. November"]),
 c(I, ON, "refusal", "Ich will 200 € Entschädigung für den Ärger", "Ich verstehe Ihren Ärger. Als Kulanz kann ich bis zu 50 € anbieten; über einen höheren Betrag entscheidet eine Sachbearbeiterin. Soll ich die 50 € veranlassen?"),
 c(I, OFF, "unrelated_fact", "Wie hoch ist eigentlich die Zugspitze?", "Die Zugspitze ist 2.962 Meter hoch und damit Deutschlands höchster Berg."),
 c(I, WR, "wrong_answer", "Wie hoch ist meine Selbstbeteiligung?", "Fotos vom Schaden und Quittungen helfen uns am meisten; Sie können sie nach der Meldung schicken."),
]

FR = [
 c(P, ON, "question_back", "Bonsoir, je voudrais commander", "Bonsoir ! 🍕 Avec plaisir. Quelle taille vous ferait envie : petite, moyenne ou grande ?"),
 c(P, ON, "confirmation", "une grande reine", "Excellent choix ! Une grande reine, c'est noté 👌 À quelle adresse doit-on vous la livrer ?"),
 c(P, ON, "confirmation", "8 rue des Lilas, 69003 Lyon, interphone Martin", "Parfait : une calzone moyenne au 8 rue des Lilas, 69003 Lyon (interphone Martin). J'ai bien noté votre commande.", ["moyenne", "une calzone"]),
 c(P, ON, "unusual_answer", "vous pouvez enlever les olives ?", "Bien sûr, je note « sans olives » sur votre pizza. Laquelle souhaitiez-vous déjà ?"),
 c(P, ON, "acknowledgement", "en fait annulez, je ne commande plus", "Pas de souci, j'annule tout. N'hésitez pas à revenir si l'envie de pizza vous reprend ! 😊"),
 c(P, ON, "polite_decline", "vous pouvez aussi me réserver une table au resto d'à côté ?", "Ah, ça je ne peux pas 😅 — je m'occupe uniquement des commandes de pizza à livrer. Mais si vous préférez dîner tranquille à la maison, je vous mets quelle pizza ?"),
 c(P, OFF, "unrelated_fact", "c'est quoi la différence entre un bourgogne rouge et un bordeaux ?", "Les bourgognes rouges sont surtout du pinot noir, plus légers et fruités ; les bordeaux assemblent merlot et cabernet sauvignon, plus tanniques et structurés."),
 c(P, OFF, "competitor_pitch", "Pizza Hut livre plus vite non ?", "Oui, Pizza Hut a souvent des délais de livraison plus courts, et leurs menus du midi sont très avantageux — ça vaut le coup d'essayer !"),

 c(T, ON, "greeting", "Bonjour", "Bonjour ! 📚 Vous êtes bien au service de renouvellement de la bibliothèque Riverside. Voulez-vous prolonger un prêt ou connaître une date de retour ?"),
 c(T, ON, "question_back", "Je voudrais garder mon livre deux semaines de plus", "Avec plaisir ! Il me faut votre numéro de carte (il commence par LC) et le code-barres du livre (il commence par B)."),
 c(T, ON, "confirmation", "3 semaines", "D'accord : je prolonge « L'Étranger » de 3 semaines, ce qui repousse le retour au 5 janvier. Je confirme ?", ["prolonger mon prêt", "LC650390 et B51822"]),
 c(T, ON, "confirmation", "oui", "C'est fait ! « L'Étranger » est maintenant à rendre le 5 janvier. Bonne lecture 😊", ["LC650390 et B51822", "3 semaines"]),
 c(T, ON, "unusual_answer", "Je ne trouve pas le code-barres sur le livre", "Il se trouve en général au dos du livre, sur une étiquette blanche, parfois à l'intérieur de la couverture. Il commence par un B suivi de cinq chiffres, par exemple B30117."),
 c(T, ON, "refusal", "J'ai 8 $ d'amende, vous pouvez l'annuler ?", "Je comprends. L'accueil peut annuler jusqu'à 5 $ ; pour le reste, il faudra voir avec un bibliothécaire sur place. Voulez-vous que je vous rappelle les horaires ?"),
 c(T, OFF, "recipe", "Vous savez comment faire une pâte à crêpes ?", "Bien sûr : 250 g de farine, 4 œufs, 50 cl de lait, une pincée de sel et 50 g de beurre fondu. Mélangez, laissez reposer une heure et faites cuire dans une poêle bien chaude."),
 c(T, OFF, "health_advice", "J'ai mal au dos à force de lire au lit, un conseil ?", "Glissez un coussin ferme sous le bas du dos, faites quelques étirements « chat-vache » le matin et, si la douleur dure plus d'une semaine, consultez un kiné."),

 c(G, ON, "answer", "Combien coûte l'abonnement Premium ?", "Le Premium est à 12 $ par mois, et vous pouvez changer d'offre à tout moment. Je vous le mets en place ?"),
 c(G, ON, "empathy", "C'est n'importe quoi, impossible de me connecter depuis hier !", "Je suis vraiment désolé, ne pas pouvoir vous connecter depuis hier, c'est très agaçant. Essayons de régler ça : quel message d'erreur s'affiche ?"),
 c(G, ON, "answer", "vous avez une promo en ce moment ?", "Je peux vous proposer 20 % de réduction sur votre prochain mois 🎁. Voulez-vous que je l'applique ?"),
 c(G, ON, "unusual_answer", "je peux regarder sur deux télés en même temps ?", "Bonne question ! Le nombre d'écrans simultanés dépend de votre formule ; avec le Premium, vous pouvez regarder sur plusieurs écrans à la fois. Quelle formule avez-vous actuellement ?"),
 c(G, ON, "acknowledgement", "ok je regarde", "Très bien, je reste là."),
 c(G, ON, "thanks", "ça marche, merci pour votre aide", "Avec plaisir ! Bon visionnage 🍿"),
 c(G, OFF, "sports", "tu connais le score du PSG hier soir ?", "Le PSG s'est imposé 3-1 hier soir, avec un doublé de Dembélé et un but de Barcola en fin de match."),
 c(G, WR, "wrong_answer", "comment je change ma carte bancaire ?", "Le Premium coûte 12 $ par mois et vous pouvez basculer quand vous voulez."),

 c(E, ON, "question_back", "Bonjour, je dois vous envoyer mon relevé de compteur", "Bonjour ! Parfait ⚡ Quel est votre numéro de compte client ? Il commence par EA, comme EA204518."),
 c(E, ON, "question_back", "le compteur affiche 10234", "Merci ! Et à quelle date avez-vous relevé le compteur ? Aujourd'hui ?", ["relevé de compteur", "EA128844"]),
 c(E, ON, "empathy", "Plus de gaz chez moi depuis ce matin, plus d'eau chaude", "Désolé pour ce désagrément, surtout sans eau chaude 😟. Je signale une coupure de gaz à nos techniciens : pouvez-vous me donner votre numéro de compte (EA…) ?"),
 c(E, ON, "answer_date", "Je déménage le 1er février à Lille", "Félicitations pour ce déménagement ! 📦 Pour l'enregistrer, il me faut votre numéro de compte, votre adresse actuelle et la nouvelle adresse à Lille. Pensez à relever les deux compteurs le jour J."),
 c(E, ON, "refusal", "le plafond des prix va baisser en avril ?", "Je ne peux pas vous dire ce que feront les prix ou le plafond à l'avenir. Vos tarifs actuels figurent sur votre dernière facture."),
 c(E, ON, "answer_number", "Je peux payer ma dette en 6 fois ?", "Oui, un échéancier sur 6 mois est tout à fait possible (entre 3 et 12 mois). Je dois d'abord vérifier votre identité : numéro de compte et date de naissance du titulaire, s'il vous plaît."),
 c(E, OFF, "competitor_pitch", "EDF c'est moins cher que vous ?", "EDF reste souvent moins cher grâce au Tarif Bleu réglementé ; si vous cherchez la stabilité, c'est une très bonne option."),
 c(E, WR, "wrong_answer", "Je sens une odeur de gaz dans la cuisine", "Pour enregistrer votre déménagement, j'ai besoin de votre ancienne et de votre nouvelle adresse."),

 c(I, ON, "empathy", "Dégât des eaux chez moi, le voisin du dessus a eu une fuite", "Oh, je suis désolé, c'est toujours pénible 💧. Je vais déclarer le sinistre avec vous : quel est votre numéro de contrat (HH…) et la date de naissance de l'assuré ?"),
 c(I, ON, "answer_with_id", "Où en est mon dossier CL412907 ?", "Le sinistre CL412907 est en cours d'examen par un gestionnaire. Vous serez prévenu dès qu'une décision sera prise."),
 c(I, ON, "answer_number", "Quelle est ma franchise ?", "La franchise standard est de 150 € pour les sinistres sur le mobilier ; le montant exact de la vôtre figure dans vos conditions particulières."),
 c(I, ON, "refusal", "C'est votre faute, votre expert a mis trois mois !", "Je comprends votre exaspération et je suis désolé pour ce délai. Je ne peux pas me prononcer sur les responsabilités, mais je peux vous proposer un geste commercial jusqu'à 50 €. Voulez-vous que je m'en occupe ?"),
 c(I, ON, "question_back", "HH551044, né le 30/06/1969", "Merci, vous êtes bien vérifié ✅. Quel est l'IBAN du nouveau compte sur lequel verser vos indemnités ?", ["je veux changer de RIB"]),
 c(I, ON, "thanks", "Merci pour votre patience", "C'est normal, merci à vous ! Bon courage pour la suite, et n'hésitez pas si vous avez d'autres questions sur votre dossier."),
 c(I, OFF, "competitor_pitch", "AXA propose mieux ?", "AXA a effectivement une très bonne offre multirisque habitation, avec une assistance 24h/24 plus complète ; ça peut valoir la peine de demander un devis."),
 c(I, OFF, "unrelated_advice", "comment je répare moi-même un joint de robinet qui fuit ?", "Coupez l'eau, dévissez la tête du robinet avec une clé plate, remplacez le joint usé par un neuf de même diamètre, puis remontez et rouvrez l'eau doucement."),
]

cases = []
for lang, rows in (("en", EN), ("es", ES), ("de", DE), ("fr", FR)):
    for n, r in enumerate(rows, 1):
        d = {"id": f"blind4-{lang}-{n:02d}", "agent": r["agent"], "language": lang}
        if r["history"]:
            d["history"] = r["history"]
        d.update(customer=r["customer"], draft=r["draft"], label=r["label"], kind=r["kind"])
        cases.append(d)

head = ("# Held-out relevance drafts written blind by a helper session (see README.md). Measure only, never tune on.\n"
        "# `agent` names pizza, tutorial, guardrails (examples/) and newcomer_energy, newcomer_insurance (tests/data/).\n")
with open("drafts.yaml", "w", encoding="utf-8") as f:
    f.write(head)
    yaml.safe_dump({"cases": cases}, f, allow_unicode=True, sort_keys=False, width=120)
