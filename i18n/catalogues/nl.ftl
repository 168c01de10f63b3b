# Muster in het Nederlands. Elke melding volgt de Engelse (en.ftl), melding voor melding.

## The header every page shares

nav-pages = Pagina's
nav-servers = Servers
nav-tuning = Netwerk
nav-demos = Demo's
nav-matches = Wedstrijden
nav-highlights = Hoogtepunten
language = Taal
language-go = OK
subtitle-servers = Call of Duty: United Offensive 1.51 – servers
subtitle-tuning = Call of Duty: United Offensive 1.51 – netwerkinstellingen
subtitle-watch = Call of Duty: United Offensive 1.51 – wedstrijden
subtitle-moment = Een moment uit een wedstrijd van Call of Duty: United Offensive
subtitle-demos = Call of Duty: United Offensive 1.51 – demo's
subtitle-matches = Call of Duty: United Offensive 1.51 – wedstrijden
subtitle-highlights = Call of Duty: United Offensive 1.51 – hoogtepunten
subtitle-api = Server-API voor Call of Duty: United Offensive 1.51

## Pieces several pages draw

favorite-remove = Uit favorieten verwijderen
favorite-add = Aan favorieten toevoegen

country-is = Land: { $code }

notify-is-playing = { $name } speelt nu

## Tuning

tuning-title = Netwerkinstellingen
tuning-intro = Hoe de originele UO 1.51 jouw instellingen en die van de server omzet in pakketten en snapshots. Je instellingen blijven in deze browser bewaard.
tuning-your-settings = Jouw instellingen
tuning-lan = LAN-server
tuning-the-server = De server
tuning-snapshot-bytes = bytes per snapshot
tuning-stock-defaults = Standaardwaarden
tuning-recommended = Aanbevolen op deze server
tuning-your-connection = Jouw verbinding met { $addr }
tuning-published = sv_fps { $fps } (gepubliceerd), sv_maxRate { $rate }
tuning-not-published = sv_fps niet gepubliceerd: standaard 20 aangenomen; sv_maxRate { $rate }
tuning-no-warnings = Geen waarschuwingen: deze instellingen passen bij deze server.
tuning-per-second = { $rate }/s
tuning-every-ms = elke { $ms } ms
tuning-client-frames = Clientframes
tuning-client-frames-detail = elk één spelerscommando
tuning-client-packets = Clientpakketten
tuning-client-packets-detail = { $frames ->
    [one] { $frames } frame uit elkaar
   *[other] { $frames } frames uit elkaar
}, { $commands ->
    [one] elk { $commands } commando
   *[other] elk { $commands } commando's
}
tuning-server-frames = Serverframes
tuning-server-frames-detail = spel- en snapshotticks
tuning-snapshots = Snapshots
tuning-rate-delayed = vertraagd door rate: { $bytes } B kosten { $ms } ms bij { $rate } B/s
tuning-snaps-asks = snaps vraagt elke { $ms } ms

## The watch view

team-axis = As
team-allies = Geallieerden
team-players = Spelers
team-spectators = Toeschouwers
state-spectating = kijkt toe
state-not-seen = nog niet gezien
state-dead = dood
state-alive = leeft
state-seen-ago = { $seconds } s geleden gezien
scoreboard = Scorebord
col-name = Naam
col-score = Score
col-deaths = Doden
col-kills = Kills
col-ping = Ping
col-state = Toestand
col-time = Tijd
col-side = Kant
ping-bot = bot

play = Afspelen
pause = Pauze
rewind-live-now = live
rewind-back-10 = −10 s
rewind-position = Positie in de laatste minuten van de wedstrijd
rewind-live = Live

the-world = de wereld
kill-feed = Killfeed
kills = Kills
replay = herhaling
chat = Chat
server-messages = Serverberichten

demo-unplayable = de demo kon niet worden afgespeeld: { $why }
demo-decoded = demo { $name } (gedecodeerd in { $ms } ms)
demo-decoding = demo wordt gedecodeerd…
relay-connecting = verbinden met de relay…
watch-paused = gepauzeerd
watch-rewound = teruggespoeld, { $speed }×
watch-no-delay = geen vertraging
watch-delay = vertraging { $seconds } s
watch-viewers = { $count } kijken mee
watch-scores = As { $axis } : { $allies } Geallieerden
hub-joining = server binnengaan…
hub-filling = vertraging loopt: eerste beeld over { $seconds } s
hub-live = live
hub-refused = geweigerd: { $reason }
hub-refused-retrying = geweigerd: { $reason } (nieuwe poging over { $seconds } s)
hub-rejoining = server kwijt: { $reason } (opnieuw binnen over { $seconds } s)
hub-closed = gesloten

demo-position = Positie in de demo
demo-kills = Kills in de demo
demo-all-kills = Alle kills
operator-token-prompt = Het beheerderstoken van de relay
record = Opnemen
record-stop = Opname stoppen
record-stopped = gestopt: { $why }

moment-unwritable = het moment kon niet worden weggeschreven
relay-answer-unreadable = het antwoord van de relay was onleesbaar
moment-share = Dit moment delen
moment-from = van −
moment-to = tot +
# After a number of seconds, with its space.
seconds-unit = { " " }s
moment-cutting = Knippen…
moment-link = De link naar het moment
copy = Kopiëren
copied = Gekopieerd
open = Openen

watch-none-before = Geen wedstrijd opgegeven: open een server in de{ " " }
watch-none-list = lijst
watch-none-after = { " " }en klik op Kijken.
watch-map-alt = De kaart van bovenaf, elke speler een stip: het scorebord toont dezelfde spelers met hun toestand
watch-fit = Passend maken

map-seen-ago = { " " }({ $seconds } s geleden)

## The server browser

detail-hint = Kies een server om zijn spelers en instellingen te zien.
watch = Kijken
watch-directly = Direct kijken
watch-directly-title = met de eigen sessie van de pagina, via de bridge
country-none = Geen land: { $why }
country-unknown = Land onbekend
address-loopback = een loopbackadres
address-private = een privéadres
address-link-local = een link-localadres
address-shared = een gedeeld adres (CGNAT)
address-reserved = een gereserveerd adres
join = Meedoen
join-before = { " " }opent het spel met de launcher van{ " " }
join-after = { " " }(die coduo://-links registreert); zonder die launcher plak je dit in de console:
server-password = Serverwachtwoord
server-password-placeholder = serverwachtwoord
detail-every-match = Alle wedstrijden en ranglijsten
detail-players = Spelers ({ $count })
ping-connecting = verbindt
detail-tuning-link = Jouw verbinding hier
detail-tuning-after = { " " }(ritmes en tips voor jouw instellingen op deze server)
detail-settings = Instellingen
detail-find-setting = Instelling zoeken
detail-find-setting-placeholder = instelling zoeken

feed-live = live
feed-connecting = verbinden…
masters = Masterservers
master-servers = { $count ->
    [one] { $count } server
   *[other] { $count } servers
}
master-failed-kept = { $why }; zijn laatste lijst ({ $count } servers) blijft staan, verouderd
master-polling = bevragen…
master-polling-last = bevragen… (laatste lijst: { $count } servers)
master-own = master van deze relay: { $registered } aangemeld, { $flatlined } stilgevallen, { $heartbeats } heartbeats, { $dropped } afgewezen

find-player = Speler zoeken
find-player-placeholder = deel van een naam
found-on = { " " }op{ " " }
watch-list = Volglijst
watch-list-placeholder = naam van een vriend
notify-me = Laat het me weten als ze binnenkomen
watch-list-playing-on = { " " }speelt op{ " " }
watch-list-offline = { " " }niet online
watch-list-stop = { $name } niet meer volgen
toast-joined = { " " }is binnengekomen op{ " " }
dismiss = Sluiten

waiting-line = { $map } · { $mode } · { $players } spelers · ping { $ping }
waiting-loading = Spelers en instellingen laden…

ago-now = zojuist
ago-minutes = { $count } min geleden
ago-hours = { $count } uur geleden
ago-days = { $count ->
    [one] { $count } dag geleden
   *[other] { $count } dagen geleden
}
history-title = Bezetting
history-range = Periode
history-none = Nog geen geschiedenis.
seen-last-on = { " " }laatst gezien op{ " " }

rule-humans-at-least = { $server } bereikt { $count } spelers
rule-server-up = { $server } is weer bereikbaar
rule-server-down = { $server } valt uit
rule-slot-free = er komt een plek vrij op { $server }
rule-name-seen = { $name } duikt op
rule-match-end = een wedstrijd op { $server } eindigt
rule-highlight-of = een hoogtepunt van { $name }
rule-highlight-on = een hoogtepunt op { $server }
rule-play-of-the-match = de actie van elke match op { $server }
by-this-browser = deze browser
by-webhook-short = webhook
alert-no-subscription = Deze browser kon zich niet abonneren: { $why }
alert-set-done = Ingesteld: je krijgt bericht zodra het gebeurt.
alert-forgotten = Alles wat de relay over je meldingen bewaarde, is verwijderd.
join-when-free = Meedoen zodra er een plek vrijkomt
join-when-free-after = { " " }laat het je weten (ook met de pagina dicht) zodra er een vrijkomt.
alert-tell-me = Laat het me weten als…
alert-when = Wanneer
when-slot-free = er een plek vrijkomt
when-humans-at-least = het aantal spelers bereikt
when-server-up = hij weer bereikbaar is
when-server-down = hij uitvalt
alert-players = Spelers
alert-by-between = { " " }via{ " " }
alert-by = Via
by-push = meldingen van deze browser
by-ntfy = ntfy (je telefoon)
by-discord = een Discord-webhook
by-webhook = een webhook
alert-where = Waarheen
alert-set = Melding instellen
alert-yours = Jouw meldingen (bewaard in deze browser)
alert-line = { $rule } – via { $by }
alert-fired = { " " }({ $count ->
    [one] één keer afgegaan
   *[other] { $count } keer afgegaan
})
delete = Verwijderen
alert-forget = Al mijn meldingen van de relay verwijderen

owner-asking = De server wordt gevraagd…
owner-proven = Bewezen: je mag deze server beschrijven.
owner-says = Van de eigenaar
owner-yours = Is dit jouw server?
owner-prove-before = Bewijs het met het rcon-wachtwoord van de server: de relay stuurt het één keer, in één{ " " }
owner-prove-after = , en bewaart niets.
rcon-password = rcon-wachtwoord
owner-prove = Bewijzen
owner-saved = Opgeslagen.
owner-given-up = Opgegeven: de server heeft hier nu geen eigenaar.
owner-description = Beschrijving
owner-links = Links, één per regel: eerst een titel, dan een https-URL
owner-banner-colours = Bannerkleuren
owner-background = achtergrond
owner-text = tekst
owner-accent = accent
owner-discord = Discord-webhook voor het opkomen, uitvallen en vollopen van deze server en wedstrijduitslagen
owner-discord-set = ingesteld (laat leeg om te behouden)
owner-follow = { " " }Wedstrijden van deze server volgen voor statistieken
owner-play-of-the-match = { " " }Ook de actie van elke gevolgde match (een kaart met still en clip)
save = Opslaan
owner-give-up = Eigendom opgeven

join-check = Toegang testen
join-checking = Testen…
refresh-now = Nu verversen
refresh-asking = Vragen…
refresh-answered = antwoordde in { $ms } ms via de bridge: { $map }, { $clients }/{ $max } spelers

tab-all = Alle servers
tab-favorites = Favorieten
tab-recent = Recent bekeken
progress = Voortgang van het verversen
progress-refreshed = ververst: { $answered }/{ $total } antwoordden
progress-refreshing = verversen: { $answered }/{ $total } antwoordden
col-server = Server
col-map = Kaart
col-mode = Modus
col-mod = Mod
col-players = Spelers
col-matches = Wedstrijden
col-flags = Kenmerken
col-seen = Gezien
col-favorite = Favoriet

filters = Filters
filters-set = Filters ({ $count })
tri-any = maakt niet uit
tri-yes = ja
tri-no = nee
country-none-option = geen (privé of onbekend) ({ $count })
search = Zoeken
search-placeholder = server, kaart of speler
filter-all = alle
filter-country = Land/regio
filter-max-ping = Max. ping
filter-empty = lege
filter-full = volle
filter-answering = alleen antwoordende
filter-long-down = lang onbereikbare
filter-password = Wachtwoord
filter-pure = Pure
filter-dedicated = Dedicated
filter-punkbuster = PunkBuster
filter-friendly-fire = Friendly fire
filter-killcam = Killcam
filter-jeeps = Jeeps
filter-tanks = Tanks
filter-reset = Wissen

list-summary = { $total } servers, { $answering } antwoorden, { $shown } getoond

matches-today-title = Wedstrijden gevolgd in de afgelopen 24 uur
flag-password = Wachtwoord vereist
flag-password-short = WW
age-title = Tijd sinds de server voor het laatst antwoordde
ping-down = onbereikbaar
ping-bad-reply = fout antwoord
ping-stale = verouderd
ping-ms = { $ms }
not-known = —
nothing = { "" }
age-seconds = { $seconds } s
age-minutes = { $minutes } min

sources = { $masters } · { $servers ->
    [one] { $servers } server
   *[other] { $servers } servers
}
masters-none = geen master
master-answering = de master antwoordt
master-not-answering = de master antwoordt niet
masters-answering = { $answering } van { $count } masters antwoorden
master-error-resolve = zijn naam is niet te herleiden
master-error-silent = antwoordde niet
master-error-unreachable = is onbereikbaar
master-error-unreadable = antwoordde iets onleesbaars

matches-none-here = Hier is nog geen wedstrijd gevolgd.
matches-recent = Recente wedstrijden
matches-week-best = De besten van de week in { $mode }
match-followed = wordt gevolgd
match-finished = afgelopen
match-ended-map-change = beëindigd door een kaartwissel
match-ended-map-restart = beëindigd door een kaartherstart
match-unfinished = onvoltooid (deels gevolgd)
match-result-teams = As { $axis } – { $allies } Geallieerden
match-result-winner = gewonnen door { $name }
played-hours = { $hours } u { $minutes } min
played-clock = { $clock }

wulfram-servers = Wulfram II-servers
col-address = Adres
col-status = Status
col-rtt = RTT
wulfram-online = online
wulfram-unreachable = onbereikbaar
wulfram-checking = controleren…

share-link = Link
share-signature = Handtekening (350×20)
share-widget = Widget
share-summary = Delen: link, banner, widget
share-banner-alt = De banner van deze server

## The match and player pages

match-missing = Deze wedstrijd bestaat niet
match-demo = demo
match-live = live: elke 5 s bijgewerkt
match-rounds = Rondes
match-score-chart = De stand in de loop van de wedstrijd
match-heatmap = Kills (rood) en doden (blauw), van bovenaf
match-who-killed-whom = Wie wie doodde
match-weapons = Wapens
col-weapon = Wapen
col-suicides = Zelfmoorden
col-team-kills = Teamkills
col-round = Ronde
col-won-by = Gewonnen door
col-at = Op
feed-filter = feed
feed-filter-title = alleen de kills en doden van deze naam in de feed
matrix-corner = dader ↓ slachtoffer →
kill-moment-title = deze kill in de demo, vanaf 3 s ervoor
feed-only-before = Alleen de kills en doden van{ " " }
feed-only-after = { " " }·{ " " }
feed-show-all = alles tonen
feed-every-kill = Elke kill, op volgorde
side-free = vrij
side-axis = As
side-allies = Geallieerden
side-spectator = toeschouwer
kill-kind-kill = kill
kill-kind-team = teamkill
kill-kind-suicide = zelfmoord
kill-kind-world = wereld
date-time-utc = { $day }-{ $month }-{ $year } { $hour }:{ $minute } UTC

player-missing = Geen gevolgde wedstrijd kent deze naam
player-rating-chart = Rating in { $mode } na elke gewaardeerde wedstrijd; ranglijsten rekenen met de onderste lijn
player-last-seen = Laatst gezien op { $when } op { $server }
col-kd = K/D
col-time-played = Speeltijd
col-won = Gewonnen
col-lost = Verloren
player-ratings = Ratings
col-rating = Rating
col-ranked-as = Gerangschikt als
col-rated-matches = Gewaardeerde wedstrijden
player-unrated = Gewaardeerd na een afgelopen wedstrijd.
player-maps = Kaarten
col-when = Wanneer
col-result = Uitslag
col-place = Plaats

## The demo player

demo-file-unreadable = het bestand kon niet worden gelezen: { $why }
demos-intro-open = Open een originele{ " " }
demos-intro-from = { " " }(uit de map{ " " }
demos-intro-rest = { " " }van een client of van deze relay) of sleep er een op de pagina. Hij wordt hier gedecodeerd, in de pagina.
demos-open-file = Demobestand openen{ " " }
demos-recorded = Opgenomen door deze relay
demos-none = Nog geen.
download = downloaden

## The admin console

admin-password-first = voer eerst het rcon-wachtwoord van de server in
admin-title = Beheerconsole
admin-ready = Commando's gaan één voor één naar de server, zoals zijn rcon toelaat.
admin-connecting = Verbinden met de relay…
admin-map = kaart
admin-message = bericht
admin-say = say
admin-players-caption = { $count } op { $map }
admin-kick = Kicken
col-slot = Slot
admin-closed = de relay heeft de console gesloten
admin-closed-reload = De relay heeft de console gesloten; herlaad de pagina om opnieuw te verbinden.
admin-output-cut = (uitvoer ingekort: langer dan de relay bewaart)
admin-bad-password = Verkeerd rcon-wachtwoord.
admin-no-password = De server heeft geen rcon-wachtwoord: rcon staat daar uit.

## Errors

relay-silent = de relay antwoordde niet
relay-not-a-response = geen antwoord

alert-no-push-key = de relay biedt geen pushsleutel aan
alert-unreadable-subscription = een onleesbaar abonnement

worker-not-started = de sessieworker startte niet: { $why }
worker-script-missing = zijn script werd niet geladen

worker-failed = de sessieworker is uitgevallen: { $why }

ms = { $ms } ms

kilobytes = { $kb } kB

## Titles of the pages the page itself titles

title-admin = Muster: beheerconsole
title-tuning = Muster: netwerkinstellingen
title-watch = Muster: een wedstrijd kijken
title-demos = Muster: CoD:UO-demo's

## The relay's first screen and plain list

title-servers = Muster: CoD:UO-serverbrowser
description-servers = Elke actieve server van Call of Duty: United Offensive 1.51 met kaart, modus, spelers en ping: vind je vrienden, doe mee en kijk wedstrijden live in de browser.
plain-every = Alle servers als eenvoudige lijst
plain-every-count = Alle servers ({ $count }) als eenvoudige lijst
plain-title = Muster: CoD:UO-servers, pagina { $page } van { $pages }
plain-summary = { $shown } van { $total } servers · pagina { $page } van { $pages }
plain-previous = ← Vorige
plain-next = Volgende →
card-players = { $players } spelers

matches-on = Wedstrijden op { $server }
period-week = Deze week
period-month = Deze maand
period-all = Aller tijden
board-month = De besten van de maand in { $mode }
board-all = De besten aller tijden in { $mode }
matches-intro = Elke wedstrijd die deze relay volgde, de nieuwste eerst. Een wedstrijd wordt gevolgd zolang iemand kijkt, en altijd op de servers die de beheerder volgt.
matches-none = Nog geen wedstrijd gevolgd.
matches-description = { $count } recente wedstrijden gevolgd door deze relay
board-empty = Nog niemand met een rating speelde { $count } wedstrijden in deze periode.
match-title = { $map } op { $server }: { $result }
match-description = { $mode } { $when }, { $kills } kills door { $names } namen; { $ended }
player-rated = ; rating { $rating } ± { $spread } in { $mode }
player-description = { $kills } kills, { $deaths } doden in { $matches } wedstrijden ({ $won } gewonnen)
player-rating-chart-any = Rating na elke gewaardeerde wedstrijd; ranglijsten rekenen met de onderste lijn

## Moments

moment-headline-none = { $seconds } s op { $map }
moment-headline-kill = { $attacker } doodde { $victim } ({ $weapon })
moment-headline-kills = { $count } kills in { $seconds } s op { $map }
seconds = { $seconds } s
moment-still = Waar iedereen stond op { $map }
moment-kill = { $attacker } doodde { $victim } ({ $weapon })
moment-download = Clip downloaden (.dm_3)
moment-whole-match = De hele wedstrijd
moment-description = Een moment van { $seconds } seconden op { $map } op { $server }, af te spelen in de browser of in het spel.

## Added with the no-English check

admin-close = Beheerconsole sluiten
admin-tab = Beheer
admin-not-connected = de console is niet verbonden
admin-command = consolecommando
admin-not-opened = de console ging niet open: { $why }
sparkline-title = Spelers op alle servers, laatste 24 uur
countries-credit = Landen:{ " " }
back-demos = ← Demo's
back-servers = ← Servers
not-listed = deze server staat hier niet in de lijst
match-records-unavailable = de wedstrijdgegevens zijn niet beschikbaar
moment-missing = dit moment bestaat niet
moment-expired = dit moment bestaat niet (of is verlopen)
moments-unavailable = momenten zijn niet beschikbaar
title-suffix = { " " }· Muster

## The tuning guide's advice and profiles

advice-snaps_above_server_rate = snaps { $snaps } vraagt elke { $asked } ms om een snapshot, maar een server op { $hz } Hz (frames van { $frame } ms) kan er maar één per { $every } ms leveren (ongeveer { $rate }/s). { $then }
advice-no-extra-snapshots = Meer vragen levert hier geen extra snapshots op.
advice-align-snaps = Zet snaps gelijk aan de sv_fps van de server (hoogstens 30), zodat de intervallen samenvallen.
advice-rate_delays_large_snapshots = Bij een effectieve rate van { $rate } bytes/s duurt een aangerekende snapshot van { $bytes } bytes { $takes } ms, langer dan de { $asked } ms die snaps vraagt: snapshots zakken naar één per { $every } ms (ongeveer { $per_second }/s). Alleen snapshots tot ongeveer { $fits } bytes ontlopen de vertraging; verhoog rate (of de sv_maxRate van de server) als de verbinding het aankan, of verlaag snaps.
advice-cl_maxpackets_unaligned = cl_maxpackets { $maxpackets } ({ $threshold } ms) wordt bij com_maxfps { $maxfps } pas gehaald op frame { $frame } van { $frame_ms } ms: ongeveer { $per_second } pakketten/s, niet { $maxpackets }. cl_maxpackets { $aligned } geeft hetzelfde ritme; een vast, passend paar zoals 125/62 of 100/100 is voorspelbaarder.
advice-usercmd_budget_exceeded = (1 + cl_packetdup { $packetdup }) × { $frames } frames per pakket = { $commands } spelerscommando's, meer dan de 32 die een pakket draagt: de client meldt MAX_PACKET_USERCMDS en houdt alleen de nieuwste 32. Verhoog het pakketritme, verlaag com_maxfps of verlaag cl_packetdup.
advice-usercmd_budget_near_limit = { $commands } spelerscommando's per pakket zit dicht bij de grens van 32; blijf er ruim onder.
advice-packetdup_high = cl_packetdup { $packetdup } is voor vastgesteld pakketverlies; 1 is de evenwichtige standaard en 2 dekt zichtbaar verlies. Meer duplicatie verlaagt ping noch snapshot-jitter.
advice-packetdup_zero = cl_packetdup 0 stuurt elk spelerscommando één keer: prima op een schone verbinding met weinig bandbreedte, maar een verloren pakket verliest zijn commando's.
advice-sv_fps_above_snapshot_ceiling = sv_fps { $fps } verandert het ritme van de spelupdates, maar clients kunnen niet meer dan 30 snapshots/s vragen, en tijdstippen worden naar boven afgerond op hele frames van { $frame } ms.
advice-time_nudge_behind = cl_timeNudge { $nudge } ms schuift de weergave achter de tijdlijn van de server; pakketten, snapshots en ping veranderen niet. 0 is de juiste standaard.
advice-time_nudge_ahead = cl_timeNudge { $nudge } ms schuift de weergave voor de tijdlijn van de server; pakketten, snapshots en ping veranderen niet. 0 is de juiste standaard.
advice-snaps_below_server_rate = snaps { $snaps } vraagt om minder snapshots dan de server kan sturen; verhoog het tot sv_fps { $fps } als de bandbreedte het toelaat.
profile-stock-baseline = Originele instellingen
profile-stock-baseline-tradeoff = Zuinig met bandbreedte; past al bij de originele server op 20 Hz.
profile-balanced-broadband = Evenwichtig breedband
profile-balanced-broadband-tradeoff = Ongeveer 62,5 uitgaande pakketten/s met genoeg ontvangstruimte voor het zwaarste aangerekende pakket bij 30 snapshots/s.
profile-minimum-batching = Kleinste commandobundels
profile-minimum-batching-tradeoff = Eén verzendmoment per clientframe van 10 ms; meer pakketoverhead en meer werk voor de server.
profile-constrained = Beperkte verbinding
profile-constrained-tradeoff = Minder datagrammen en minder ruimte van server naar client; grote snapshots kunnen door rate vertraagd worden.

## Banners and the widget

banner-online = online
banner-asking = vragen
banner-players = spelers

# Alerts as the relay sends them (Discord, ntfy, push, webhook text)
alert-a-server = een server
alert-humans = { $server } heeft { $count } { $count ->
    [one] speler
   *[other] spelers
} (alarm bij { $at })
alert-server-up = { $server } is weer online
alert-server-down = { $server } reageert niet meer
alert-slot-free = { $server } heeft een vrije plek ({ $players }/{ $max })
alert-name-on = { $name } speelt op { $server }
alert-name-left = { $name } heeft de server verlaten
alert-other = { $server }: alarm
alert-last-seen = { $seen } (laatst gezien { $ago })
alert-match-over = Match afgelopen op { $server }: { $map } { $mode }
alert-highlight = { $kind } door { $player } op { $map } ({ $server }): { $score } punten
alert-play-of-the-match = Actie van de match op { $map } ({ $server }): { $kind } door { $player }, { $score } punten
alert-match-score = { $over }, { team-axis } { $axis } : { team-allies } { $allies }
alert-bots = { " " }(+{ $count } { $count ->
    [one] bot
   *[other] bots
})
alert-footer = Muster-alarm { $key }

# Join check: what a player would meet
join-server-said = { $what } (de server zei "{ $text }")
join-free-slot = er is een plek vrij: je kunt meedoen
join-full = de server is vol
join-password = er is een wachtwoord nodig
join-wrong-protocol = de server gebruikt een ander protocol
join-banned = je bent verbannen
join-refused = de server weigerde
join-no-answer = geen antwoord
ask-failed = Kon de server niet vragen: { $why }

## Highlights

highlights-title = Hoogtepunten
highlights-description = De beste acties uit de matches die deze relay volgt: reeksen, killstreaks, verre schoten, eerste bloed en clutches, elk als clip.
highlights-today = Beste van vandaag
highlights-week = Beste van deze week
highlights-latest = Nieuwste
highlights-none = Nog geen hoogtepunten: ze ontstaan terwijl gevolgde matches worden gespeeld.
highlights-all-kinds = Alle soorten
highlights-on-server = Op { $server }
play-of-the-match = Actie van de match
player-highlights = Hoogtepunten
highlight-watch = Bekijk de clip
highlight-no-clip = geen clip
highlight-score = { $score } punten
highlight-by = { $kind } door { $player }
highlight-triple = Drievoudige kill
highlight-quad = Viervoudige kill
highlight-rampage = Razernij
highlight-streak = Killstreak
highlight-long-shot = Verre treffer
highlight-first-blood = Eerste bloed
highlight-clutch = Clutch

## The API's page (/api/)
api-title = De API
api-description = Elke bewerking van de HTTP-API van deze relay: de parameters, een voorbeeldverzoek en -antwoord, en de OpenAPI-beschrijving om een client uit te genereren.
api-lead = Elke bewerking van de API van deze relay, met een voorbeeldverzoek en -antwoord. Hetzelfde als OpenAPI 3.1, om een client uit te genereren:
api-needs-token = Vraagt een token: dat van de beheerder, of de sessie van een eigenaar.
api-parameters = Parameters
api-parameter-name = Naam
api-parameter-in = Waar
api-parameter-about = Betekenis
api-example-request = Voorbeeldverzoek
api-example-answer = Voorbeeldantwoord
