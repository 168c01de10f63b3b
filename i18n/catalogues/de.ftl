# Muster auf Deutsch. Jede Meldung folgt der englischen (en.ftl), Meldung für Meldung.

## The header every page shares

nav-pages = Seiten
nav-servers = Server
nav-tuning = Netzwerk
nav-demos = Demos
nav-matches = Matches
nav-highlights = Highlights
language = Sprache
language-go = Los
subtitle-servers = Call of Duty: United Offensive 1.51 – Server
subtitle-tuning = Call of Duty: United Offensive 1.51 – Netzwerkeinstellungen
subtitle-watch = Call of Duty: United Offensive 1.51 – Matches
subtitle-moment = Ein Moment aus einem Match von Call of Duty: United Offensive
subtitle-demos = Call of Duty: United Offensive 1.51 – Demos
subtitle-matches = Call of Duty: United Offensive 1.51 – Matches
subtitle-highlights = Call of Duty: United Offensive 1.51 – Highlights
subtitle-api = Server-API für Call of Duty: United Offensive 1.51

## Pieces several pages draw

favorite-remove = Aus den Favoriten entfernen
favorite-add = Zu den Favoriten hinzufügen

country-is = Land: { $code }

notify-is-playing = { $name } spielt gerade

## Tuning

tuning-title = Netzwerkeinstellungen
tuning-intro = Wie UO 1.51 im Original deine Einstellungen und die des Servers in Pakete und Snapshots umsetzt. Deine Einstellungen bleiben in diesem Browser gespeichert.
tuning-your-settings = Deine Einstellungen
tuning-lan = LAN-Server
tuning-the-server = Der Server
tuning-snapshot-bytes = Snapshot-Bytes
tuning-stock-defaults = Standardwerte
tuning-recommended = Empfohlen für diesen Server
tuning-your-connection = Deine Verbindung zu { $addr }
tuning-published = sv_fps { $fps } (veröffentlicht), sv_maxRate { $rate }
tuning-not-published = sv_fps nicht veröffentlicht: Standard 20 angenommen; sv_maxRate { $rate }
tuning-no-warnings = Keine Warnungen: Diese Einstellungen passen zu diesem Server.
tuning-per-second = { $rate }/s
tuning-every-ms = alle { $ms } ms
tuning-client-frames = Client-Frames
tuning-client-frames-detail = je ein Benutzerbefehl
tuning-client-packets = Client-Pakete
tuning-client-packets-detail = { $frames ->
    [one] { $frames } Frame Abstand
   *[other] { $frames } Frames Abstand
}, { $commands ->
    [one] je { $commands } Befehl
   *[other] je { $commands } Befehle
}
tuning-server-frames = Server-Frames
tuning-server-frames-detail = Spiel- und Snapshot-Ticks
tuning-snapshots = Snapshots
tuning-rate-delayed = durch rate verzögert: { $bytes } B brauchen { $ms } ms bei { $rate } B/s
tuning-snaps-asks = snaps fordert alle { $ms } ms an

## The watch view

team-axis = Achsenmächte
team-allies = Alliierte
team-players = Spieler
team-spectators = Zuschauer
state-spectating = schaut zu
state-not-seen = noch nicht gesehen
state-dead = tot
state-alive = lebt
state-seen-ago = vor { $seconds } s gesehen
scoreboard = Punktetabelle
col-name = Name
col-score = Punkte
col-deaths = Tode
col-kills = Kills
col-ping = Ping
col-state = Zustand
col-time = Zeit
col-side = Seite
ping-bot = Bot

play = Abspielen
pause = Pause
rewind-live-now = live
rewind-back-10 = −10 s
rewind-position = Position in den letzten Minuten des Matches
rewind-live = Live

the-world = die Welt
kill-feed = Kill-Feed
kills = Kills
replay = Wiederholung
chat = Chat
server-messages = Servermeldungen

demo-unplayable = Die Demo ließ sich nicht abspielen: { $why }
demo-decoded = Demo { $name } (in { $ms } ms dekodiert)
demo-decoding = Demo wird dekodiert…
relay-connecting = Verbindung zum Relay wird aufgebaut…
watch-paused = pausiert
watch-rewound = zurückgespult, { $speed }×
watch-no-delay = keine Verzögerung
watch-delay = Verzögerung { $seconds } s
watch-viewers = { $count } schauen zu
watch-scores = Achsenmächte { $axis } : { $allies } Alliierte
hub-joining = Server wird betreten…
hub-filling = Verzögerung läuft: erstes Bild in { $seconds } s
hub-live = live
hub-refused = abgelehnt: { $reason }
hub-refused-retrying = abgelehnt: { $reason } (neuer Versuch in { $seconds } s)
hub-rejoining = Verbindung zum Server verloren: { $reason } (erneuter Beitritt in { $seconds } s)
hub-closed = beendet

demo-position = Position in der Demo
demo-kills = Kills in der Demo
demo-all-kills = Alle Kills
operator-token-prompt = Das Betreiber-Token des Relays
record = Aufnehmen
record-stop = Aufnahme beenden
record-stopped = angehalten: { $why }

moment-unwritable = Der Moment konnte nicht geschrieben werden
relay-answer-unreadable = Die Antwort des Relays war nicht lesbar
moment-share = Diesen Moment teilen
moment-from = von −
moment-to = bis +
# After a number of seconds, with its space.
seconds-unit = { " " }s
moment-cutting = Wird geschnitten…
moment-link = Der Link zum Moment
copy = Kopieren
copied = Kopiert
open = Öffnen

watch-none-before = Kein Match angegeben: Öffne einen Server in der{ " " }
watch-none-list = Liste
watch-none-after = { " " }und klicke auf Zuschauen.
watch-map-alt = Die Karte von oben, jeder Spieler ein Punkt: Die Punktetabelle listet dieselben Spieler mit ihrem Zustand
watch-fit = Einpassen

map-seen-ago = { " " }(vor { $seconds } s)

## The server browser

detail-hint = Wähle einen Server, um seine Spieler und Einstellungen zu sehen.
watch = Zuschauen
watch-directly = Direkt zuschauen
watch-directly-title = mit der eigenen Sitzung der Seite, über die Bridge
country-none = Kein Land: { $why }
country-unknown = Land unbekannt
address-loopback = eine Loopback-Adresse
address-private = eine private Adresse
address-link-local = eine Link-Local-Adresse
address-shared = eine geteilte Adresse (Carrier-Grade-NAT)
address-reserved = eine reservierte Adresse
join = Beitreten
join-before = { " " }öffnet das Spiel mit dem Launcher von{ " " }
join-after = { " " }(er meldet coduo://-Links an); ohne ihn füge dies in die Konsole ein:
server-password = Serverpasswort
server-password-placeholder = Serverpasswort
detail-every-match = Alle Matches und die Bestenlisten
detail-players = Spieler ({ $count })
ping-connecting = verbindet
detail-tuning-link = Deine Verbindung hier
detail-tuning-after = { " " }(Takte und Tipps für deine Einstellungen auf diesem Server)
detail-settings = Einstellungen
detail-find-setting = Einstellung suchen
detail-find-setting-placeholder = Einstellung suchen

feed-live = live
feed-connecting = verbinde…
masters = Masterserver
master-servers = { $count ->
    [one] { $count } Server
   *[other] { $count } Server
}
master-failed-kept = { $why }; seine letzte Liste ({ $count } Server) bleibt, veraltet
master-polling = wird abgefragt…
master-polling-last = wird abgefragt… (letzte Liste: { $count } Server)
master-own = Master dieses Relays: { $registered } angemeldet, { $flatlined } verstummt, { $heartbeats } Heartbeats, { $dropped } verworfen

find-player = Spieler finden
find-player-placeholder = Teil eines Namens
found-on = { " " }auf{ " " }
watch-list = Beobachtungsliste
watch-list-placeholder = Name eines Freundes
notify-me = Benachrichtigen, wenn sie beitreten
watch-list-playing-on = { " " }spielt auf{ " " }
watch-list-offline = { " " }nicht online
watch-list-stop = { $name } nicht mehr beobachten
toast-joined = { " " }ist beigetreten:{ " " }
dismiss = Schließen

waiting-line = { $map } · { $mode } · { $players } Spieler · Ping { $ping }
waiting-loading = Spieler und Einstellungen werden geladen…

ago-now = gerade eben
ago-minutes = vor { $count } Min.
ago-hours = vor { $count } Std.
ago-days = { $count ->
    [one] vor { $count } Tag
   *[other] vor { $count } Tagen
}
history-title = Spielerzahl
history-range = Zeitraum
history-none = Noch kein Verlauf.
seen-last-on = { " " }zuletzt gesehen auf{ " " }

rule-humans-at-least = { $server } erreicht { $count } Spieler
rule-server-up = { $server } ist wieder erreichbar
rule-server-down = { $server } fällt aus
rule-slot-free = { $server } hat einen freien Platz
rule-name-seen = { $name } taucht auf
rule-match-end = ein Match auf { $server } endet
rule-highlight-of = ein Highlight von { $name }
rule-highlight-on = ein Highlight auf { $server }
rule-play-of-the-match = die Szene jedes Matches auf { $server }
by-this-browser = dieser Browser
by-webhook-short = Webhook
alert-no-subscription = Dieser Browser konnte nicht abonnieren: { $why }
alert-set-done = Eingerichtet: Du wirst benachrichtigt, sobald es passiert.
alert-forgotten = Alles, was das Relay über deine Benachrichtigungen gespeichert hatte, ist gelöscht.
join-when-free = Beitreten, sobald ein Platz frei wird
join-when-free-after = { " " }sagt dir Bescheid (auch bei geschlossener Seite), sobald einer frei wird.
alert-tell-me = Sag mir Bescheid, wenn…
alert-when = Wann
when-slot-free = ein Platz frei wird
when-humans-at-least = die Spielerzahl erreicht
when-server-up = er wieder erreichbar ist
when-server-down = er ausfällt
alert-players = Spieler
alert-by-between = { " " }per{ " " }
alert-by = Per
by-push = Benachrichtigungen dieses Browsers
by-ntfy = ntfy (dein Handy)
by-discord = einen Discord-Webhook
by-webhook = einen Webhook
alert-where = Wohin
alert-set = Benachrichtigung einrichten
alert-yours = Deine Benachrichtigungen (in diesem Browser gespeichert)
alert-line = { $rule } – per { $by }
alert-fired = { " " }({ $count ->
    [one] einmal ausgelöst
   *[other] { $count }-mal ausgelöst
})
delete = Löschen
alert-forget = Alle meine Benachrichtigungen vom Relay löschen

owner-asking = Der Server wird gefragt…
owner-proven = Bestätigt: Du darfst diesen Server beschreiben.
owner-says = Vom Betreiber
owner-yours = Ist das dein Server?
owner-prove-before = Beweise es mit dem rcon-Passwort des Servers: Das Relay sendet es einmal, in einem einzigen{ " " }
owner-prove-after = , und speichert nichts.
rcon-password = rcon-Passwort
owner-prove = Bestätigen
owner-saved = Gespeichert.
owner-given-up = Aufgegeben: Der Server hat hier jetzt keinen Betreiber.
owner-description = Beschreibung
owner-links = Links, einer pro Zeile: erst ein Titel, dann eine https-URL
owner-banner-colours = Bannerfarben
owner-background = Hintergrund
owner-text = Text
owner-accent = Akzent
owner-discord = Discord-Webhook für Start, Ausfall, volle Belegung und Matchergebnisse dieses Servers
owner-discord-set = gesetzt (leer lassen, um ihn zu behalten)
owner-follow = { " " }Matches dieses Servers für Statistiken verfolgen
owner-play-of-the-match = { " " }Auch die Szene jedes verfolgten Matches (eine Karte mit Standbild und Clip)
save = Speichern
owner-give-up = Betreiberschaft aufgeben

join-check = Beitritt prüfen
join-checking = Wird geprüft…
refresh-now = Jetzt aktualisieren
refresh-asking = Wird gefragt…
refresh-answered = über die Bridge in { $ms } ms geantwortet: { $map }, { $clients }/{ $max } Spieler

tab-all = Alle Server
tab-favorites = Favoriten
tab-recent = Zuletzt angesehen
progress = Fortschritt der Aktualisierung
progress-refreshed = aktualisiert: { $answered }/{ $total } geantwortet
progress-refreshing = wird aktualisiert: { $answered }/{ $total } geantwortet
col-server = Server
col-map = Karte
col-mode = Modus
col-mod = Mod
col-players = Spieler
col-matches = Matches
col-flags = Merkmale
col-seen = Gesehen
col-favorite = Favorit

filters = Filter
filters-set = Filter ({ $count })
tri-any = egal
tri-yes = ja
tri-no = nein
country-none-option = keins (privat oder unbekannt) ({ $count })
search = Suchen
search-placeholder = Server, Karte oder Spieler
filter-all = alle
filter-country = Land/Region
filter-max-ping = Max. Ping
filter-empty = leere
filter-full = volle
filter-answering = nur antwortende
filter-long-down = lange ausgefallene
filter-password = Passwort
filter-pure = Pure
filter-dedicated = Dedicated
filter-punkbuster = PunkBuster
filter-friendly-fire = Friendly Fire
filter-killcam = Killcam
filter-jeeps = Jeeps
filter-tanks = Panzer
filter-reset = Zurücksetzen

list-summary = { $total } Server, { $answering } antworten, { $shown } angezeigt

matches-today-title = In den letzten 24 Stunden verfolgte Matches
flag-password = Passwort erforderlich
flag-password-short = PW
age-title = Zeit seit der letzten Antwort des Servers
ping-down = aus
ping-bad-reply = fehlerhaft
ping-stale = veraltet
ping-ms = { $ms }
not-known = —
nothing = { "" }
age-seconds = { $seconds } s
age-minutes = { $minutes } Min.

sources = { $masters } · { $servers } Server
masters-none = kein Master
master-answering = der Master antwortet
master-not-answering = der Master antwortet nicht
masters-answering = { $answering } von { $count } Mastern antworten
master-error-resolve = sein Name lässt sich nicht auflösen
master-error-silent = hat nicht geantwortet
master-error-unreachable = ist nicht erreichbar
master-error-unreadable = hat etwas Unlesbares geantwortet

matches-none-here = Hier wurde noch kein Match verfolgt.
matches-recent = Letzte Matches
matches-week-best = Die Besten der Woche in { $mode }
match-followed = wird verfolgt
match-finished = beendet
match-ended-map-change = durch Kartenwechsel beendet
match-ended-map-restart = durch Kartenneustart beendet
match-unfinished = unvollständig (teilweise verfolgt)
match-result-teams = Achsenmächte { $axis } – { $allies } Alliierte
match-result-winner = gewonnen von { $name }
played-hours = { $hours } Std. { $minutes } Min.
played-clock = { $clock }

wulfram-servers = Wulfram-II-Server
col-address = Adresse
col-status = Status
col-rtt = RTT
wulfram-online = online
wulfram-unreachable = nicht erreichbar
wulfram-checking = wird geprüft…

share-link = Link
share-signature = Signatur (350×20)
share-widget = Widget
share-summary = Teilen: Link, Banner, Widget
share-banner-alt = Das Banner dieses Servers

## The match and player pages

match-missing = Dieses Match gibt es nicht
match-demo = Demo
match-live = live: alle 5 s aktualisiert
match-rounds = Runden
match-score-chart = Der Punktestand im Lauf des Matches
match-heatmap = Kills (rot) und Tode (blau), von oben gesehen
match-who-killed-whom = Wer wen getötet hat
match-weapons = Waffen
col-weapon = Waffe
col-suicides = Selbstmorde
col-team-kills = Teamkills
col-round = Runde
col-won-by = Gewonnen von
col-at = Bei
feed-filter = Feed
feed-filter-title = nur die Kills und Tode dieses Namens im Feed
matrix-corner = Killer ↓ Opfer →
kill-moment-title = dieser Kill in der Demo, ab 3 s davor
feed-only-before = Nur die Kills und Tode von{ " " }
feed-only-after = { " " }·{ " " }
feed-show-all = alle zeigen
feed-every-kill = Jeder Kill, der Reihe nach
side-free = frei
side-axis = Achse
side-allies = Alliierte
side-spectator = Zuschauer
kill-kind-kill = Kill
kill-kind-team = Teamkill
kill-kind-suicide = Selbstmord
kill-kind-world = Welt
date-time-utc = { $day }.{ $month }.{ $year }, { $hour }:{ $minute } UTC

player-missing = Kein verfolgtes Match kennt diesen Namen
player-rating-chart = Wertung in { $mode } nach jedem gewerteten Match; Listen ordnen nach der unteren Linie
player-last-seen = Zuletzt gesehen am { $when } auf { $server }
col-kd = K/D
col-time-played = Spielzeit
col-won = Gewonnen
col-lost = Verloren
player-ratings = Wertungen
col-rating = Wertung
col-ranked-as = Eingestuft als
col-rated-matches = Gewertete Matches
player-unrated = Gewertet nach einem beendeten Match.
player-maps = Karten
col-when = Wann
col-result = Ergebnis
col-place = Platz

## The demo player

demo-file-unreadable = Die Datei konnte nicht gelesen werden: { $why }
demos-intro-open = Öffne eine originale{ " " }
demos-intro-from = { " " }(aus dem{ " " }
demos-intro-rest = -Ordner eines Clients oder von diesem Relay) oder ziehe sie auf die Seite. Sie wird hier dekodiert, in der Seite.
demos-open-file = Demodatei öffnen{ " " }
demos-recorded = Von diesem Relay aufgenommen
demos-none = Noch keine.
download = herunterladen

## The admin console

admin-password-first = Gib zuerst das rcon-Passwort des Servers ein
admin-title = Admin-Konsole
admin-ready = Befehle gehen einzeln an den Server, so wie sein rcon es zulässt.
admin-connecting = Verbindung zum Relay wird aufgebaut…
admin-map = Karte
admin-message = Nachricht
admin-say = say
admin-players-caption = { $count } auf { $map }
admin-kick = Kicken
col-slot = Slot
admin-closed = Das Relay hat die Konsole geschlossen
admin-closed-reload = Das Relay hat die Konsole geschlossen; lade die Seite neu, um dich wieder zu verbinden.
admin-output-cut = (Ausgabe gekürzt: länger, als das Relay speichert)
admin-bad-password = Falsches rcon-Passwort.
admin-no-password = Auf dem Server ist kein rcon-Passwort gesetzt: rcon ist dort aus.

## Errors

relay-silent = Das Relay hat nicht geantwortet
relay-not-a-response = keine Antwort

alert-no-push-key = Das Relay bietet keinen Push-Schlüssel an
alert-unreadable-subscription = ein unlesbares Abonnement

worker-not-started = Der Sitzungs-Worker ist nicht gestartet: { $why }
worker-script-missing = sein Skript wurde nicht geladen

worker-failed = Der Sitzungs-Worker ist ausgefallen: { $why }

ms = { $ms } ms

kilobytes = { $kb } KB

## Titles of the pages the page itself titles

title-admin = Muster: Admin-Konsole
title-tuning = Muster: Netzwerkeinstellungen
title-watch = Muster: Match zuschauen
title-demos = Muster: CoD:UO-Demos

## The relay's first screen and plain list

title-servers = Muster: CoD:UO-Serverbrowser
description-servers = Jeder laufende Server von Call of Duty: United Offensive 1.51 mit Karte, Modus, Spielern und Ping: Finde deine Freunde, tritt bei und schau Matches live im Browser.
plain-every = Alle Server als einfache Liste
plain-every-count = Alle Server ({ $count }) als einfache Liste
plain-title = Muster: CoD:UO-Server, Seite { $page } von { $pages }
plain-summary = { $shown } von { $total } Servern · Seite { $page } von { $pages }
plain-previous = ← Zurück
plain-next = Weiter →
card-players = { $players } Spieler

matches-on = Matches auf { $server }
period-week = Diese Woche
period-month = Dieser Monat
period-all = Insgesamt
board-month = Die Besten des Monats in { $mode }
board-all = Die Besten aller Zeiten in { $mode }
matches-intro = Jedes Match, das dieses Relay verfolgt hat, das neueste zuerst. Ein Match wird verfolgt, solange jemand zuschaut, und immer auf den Servern, die der Betreiber verfolgt.
matches-none = Noch kein Match verfolgt.
matches-description = { $count } zuletzt von diesem Relay verfolgte Matches
board-empty = Noch hat niemand mit Wertung in diesem Zeitraum { $count } Matches gespielt.
match-title = { $map } auf { $server }: { $result }
match-description = { $mode } { $when }, { $kills } Kills von { $names } Namen; { $ended }
player-rated = ; Wertung { $rating } ± { $spread } in { $mode }
player-description = { $kills } Kills, { $deaths } Tode in { $matches } Matches ({ $won } gewonnen)
player-rating-chart-any = Wertung nach jedem gewerteten Match; Listen ordnen nach der unteren Linie

## Moments

moment-headline-none = { $seconds } s auf { $map }
moment-headline-kill = { $attacker } tötete { $victim } ({ $weapon })
moment-headline-kills = { $count } Kills in { $seconds } s auf { $map }
seconds = { $seconds } s
moment-still = Wo alle auf { $map } standen
moment-kill = { $attacker } tötete { $victim } ({ $weapon })
moment-download = Clip herunterladen (.dm_3)
moment-whole-match = Das ganze Match
moment-description = Ein { $seconds }-Sekunden-Moment auf { $map } auf { $server }, abspielbar im Browser oder im Spiel.

## Added with the no-English check

admin-close = Admin-Konsole schließen
admin-tab = Admin
admin-not-connected = Die Konsole ist nicht verbunden
admin-command = Konsolenbefehl
admin-not-opened = Die Konsole ließ sich nicht öffnen: { $why }
sparkline-title = Spieler auf allen Servern, letzte 24 Std.
countries-credit = Länder:{ " " }
back-demos = ← Demos
back-servers = ← Server
not-listed = Dieser Server ist hier nicht gelistet
match-records-unavailable = Die Matchdaten sind nicht verfügbar
moment-missing = Diesen Moment gibt es nicht
moment-expired = Diesen Moment gibt es nicht (oder er ist abgelaufen)
moments-unavailable = Momente sind nicht verfügbar
title-suffix = { " " }· Muster

## The tuning guide's advice and profiles

advice-snaps_above_server_rate = snaps { $snaps } fordert alle { $asked } ms einen Snapshot an, aber ein Server mit { $hz } Hz ({ $frame }-ms-Frames) kann nur alle { $every } ms einen liefern (etwa { $rate }/s). { $then }
advice-no-extra-snapshots = Mehr anzufordern bringt hier keine zusätzlichen Snapshots.
advice-align-snaps = Wähle snaps gleich dem sv_fps des Servers (höchstens 30), damit die Abstände zusammenpassen.
advice-rate_delays_large_snapshots = Bei einer effektiven Rate von { $rate } Bytes/s braucht ein angerechneter Snapshot von { $bytes } Bytes { $takes } ms, länger als die { $asked } ms, die snaps verlangt: Snapshots kommen nur noch alle { $every } ms (etwa { $per_second }/s). Nur Snapshots bis etwa { $fits } Bytes entgehen der Verzögerung; erhöhe rate (oder sv_maxRate des Servers), wenn die Leitung es trägt, oder senke snaps.
advice-cl_maxpackets_unaligned = cl_maxpackets { $maxpackets } ({ $threshold } ms) wird bei com_maxfps { $maxfps } erst im { $frame }. Frame zu { $frame_ms } ms erreicht: etwa { $per_second } Pakete/s statt { $maxpackets }. cl_maxpackets { $aligned } ergibt denselben Takt; ein gleichmäßig passendes Paar wie 125/62 oder 100/100 ist berechenbarer.
advice-usercmd_budget_exceeded = (1 + cl_packetdup { $packetdup }) × { $frames } Frames pro Paket = { $commands } Benutzerbefehle, mehr als die 32, die ein Paket trägt: Der Client meldet MAX_PACKET_USERCMDS und behält nur die neuesten 32. Erhöhe den Pakettakt, senke com_maxfps oder verringere cl_packetdup.
advice-usercmd_budget_near_limit = { $commands } Benutzerbefehle pro Paket liegen nah an der Grenze von 32; bleib deutlich darunter.
advice-packetdup_high = cl_packetdup { $packetdup } ist für nachgewiesenen Paketverlust gedacht; 1 ist der ausgewogene Standard, 2 deckt sichtbaren Verlust ab. Mehr Duplikate senken weder Ping noch Snapshot-Jitter.
advice-packetdup_zero = cl_packetdup 0 sendet jeden Benutzerbefehl nur einmal: gut auf einer sauberen Leitung mit knapper Bandbreite, aber ein verlorenes Paket verliert seine Befehle.
advice-sv_fps_above_snapshot_ceiling = sv_fps { $fps } ändert den Takt der Spiel-Updates, aber Clients können höchstens 30 Snapshots/s anfordern, und Fälligkeiten werden auf ganze { $frame }-ms-Frames aufgerundet.
advice-time_nudge_behind = cl_timeNudge { $nudge } ms verschiebt die Darstellung hinter die Zeitlinie des Servers; Pakete, Snapshots und Ping ändert es nicht. 0 ist der richtige Standard.
advice-time_nudge_ahead = cl_timeNudge { $nudge } ms verschiebt die Darstellung vor die Zeitlinie des Servers; Pakete, Snapshots und Ping ändert es nicht. 0 ist der richtige Standard.
advice-snaps_below_server_rate = snaps { $snaps } fordert weniger Snapshots an, als der Server senden könnte; erhöhe es auf sv_fps { $fps }, wenn die Bandbreite reicht.
profile-stock-baseline = Originalwerte
profile-stock-baseline-tradeoff = Sparsam mit Bandbreite; passt schon zum originalen 20-Hz-Server.
profile-balanced-broadband = Ausgewogen für Breitband
profile-balanced-broadband-tradeoff = Etwa 62,5 ausgehende Pakete/s mit genug Empfangsspielraum für das ungünstigste angerechnete Paket bei 30 Snapshots/s.
profile-minimum-batching = Kleinste Befehlsbündel
profile-minimum-batching-tradeoff = Eine Sendegelegenheit pro 10-ms-Frame des Clients; mehr Paket-Overhead und mehr Paketarbeit für den Server.
profile-constrained = Schwache Verbindung
profile-constrained-tradeoff = Weniger Datagramme und weniger Spielraum vom Server zum Client; große Snapshots können durch rate verzögert werden.

## Banners and the widget

banner-online = online
banner-asking = wird gefragt
banner-players = Spieler

# Alerts as the relay sends them (Discord, ntfy, push, webhook text)
alert-a-server = ein Server
alert-humans = { $server } hat { $count } Spieler (Alarm bei { $at })
alert-server-up = { $server } ist wieder online
alert-server-down = { $server } antwortet nicht mehr
alert-slot-free = { $server } hat einen freien Platz ({ $players }/{ $max })
alert-name-on = { $name } ist auf { $server }
alert-name-left = { $name } hat den Server verlassen
alert-other = { $server }: Alarm
alert-last-seen = { $seen } (zuletzt gesehen { $ago })
alert-match-over = Match beendet auf { $server }: { $map } { $mode }
alert-highlight = { $kind } von { $player } auf { $map } ({ $server }): { $score } Punkte
alert-play-of-the-match = Szene des Matches auf { $map } ({ $server }): { $kind } von { $player }, { $score } Punkte
alert-match-score = { $over }, { team-axis } { $axis } : { team-allies } { $allies }
alert-bots = { " " }(+{ $count } { $count ->
    [one] Bot
   *[other] Bots
})
alert-footer = Muster-Alarm { $key }

# Join check: what a player would meet
join-server-said = { $what } (der Server sagte „{ $text }“)
join-free-slot = ein Platz ist frei: du kannst beitreten
join-full = der Server ist voll
join-password = ein Passwort ist nötig
join-wrong-protocol = der Server nutzt ein anderes Protokoll
join-banned = du bist gebannt
join-refused = der Server hat abgelehnt
join-no-answer = keine Antwort
ask-failed = Konnte den Server nicht fragen: { $why }

## Highlights

highlights-title = Highlights
highlights-description = Die besten Szenen der Matches, denen dieses Relay folgt: Serien, Killstreaks, Weitschüsse, erstes Blut und Clutches, jede als Clip.
highlights-today = Die Besten von heute
highlights-week = Die Besten der Woche
highlights-latest = Neueste
highlights-none = Noch keine Highlights: Sie entstehen, während verfolgte Matches gespielt werden.
highlights-all-kinds = Alle Arten
highlights-on-server = Auf { $server }
play-of-the-match = Szene des Matches
player-highlights = Highlights
highlight-watch = Clip ansehen
highlight-no-clip = kein Clip
highlight-score = { $score } Punkte
highlight-by = { $kind } von { $player }
highlight-triple = Dreifachkill
highlight-quad = Vierfachkill
highlight-rampage = Amoklauf
highlight-streak = Killstreak
highlight-long-shot = Weitschuss
highlight-first-blood = Erstes Blut
highlight-clutch = Clutch

## The API's page (/api/)
api-title = Die API
api-description = Jede Operation der HTTP-API dieses Relays: ihre Parameter, eine Beispielanfrage und -antwort und die OpenAPI-Beschreibung, aus der sich ein Client erzeugen lässt.
api-lead = Jede Operation der API dieses Relays, mit Beispielanfrage und -antwort. Dasselbe als OpenAPI 3.1, um daraus einen Client zu erzeugen:
api-needs-token = Braucht ein Token: das des Betreibers oder die Sitzung eines Besitzers.
api-parameters = Parameter
api-parameter-name = Name
api-parameter-in = In
api-parameter-about = Bedeutung
api-example-request = Beispielanfrage
api-example-answer = Beispielantwort
