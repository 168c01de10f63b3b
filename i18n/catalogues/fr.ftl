# Muster en français. Chaque message suit l'anglais (en.ftl), message par message.

## The header every page shares

nav-pages = Pages
nav-servers = Serveurs
nav-tuning = Réseau
nav-demos = Démos
nav-matches = Matchs
nav-highlights = Temps forts
language = Langue
language-go = OK
subtitle-servers = Call of Duty: United Offensive 1.51 – serveurs
subtitle-tuning = Call of Duty: United Offensive 1.51 – réglages réseau
subtitle-watch = Call of Duty: United Offensive 1.51 – matchs
subtitle-moment = Un moment d'un match de Call of Duty: United Offensive
subtitle-demos = Call of Duty: United Offensive 1.51 – démos
subtitle-matches = Call of Duty: United Offensive 1.51 – matchs
subtitle-highlights = Call of Duty: United Offensive 1.51 – temps forts
subtitle-api = API des serveurs Call of Duty: United Offensive 1.51

## Pieces several pages draw

favorite-remove = Retirer des favoris
favorite-add = Ajouter aux favoris

country-is = Pays : { $code }

notify-is-playing = { $name } est en jeu

## Tuning

tuning-title = Réglages réseau
tuning-intro = Comment UO 1.51 d'origine transforme vos réglages et ceux du serveur en paquets et en snapshots. Vos réglages restent dans ce navigateur.
tuning-your-settings = Vos réglages
tuning-lan = Serveur en LAN
tuning-the-server = Le serveur
tuning-snapshot-bytes = octets par snapshot
tuning-stock-defaults = Valeurs par défaut
tuning-recommended = Recommandé sur ce serveur
tuning-your-connection = Votre connexion à { $addr }
tuning-published = sv_fps { $fps } (publié), sv_maxRate { $rate }
tuning-not-published = sv_fps non publié : 20 par défaut supposé ; sv_maxRate { $rate }
tuning-no-warnings = Aucun avertissement : ces réglages conviennent à ce serveur.
tuning-per-second = { $rate }/s
tuning-every-ms = toutes les { $ms } ms
tuning-client-frames = Images du client
tuning-client-frames-detail = une commande joueur chacune
tuning-client-packets = Paquets du client
tuning-client-packets-detail = { $frames ->
    [one] toutes les { $frames } image
   *[other] toutes les { $frames } images
}, { $commands ->
    [one] { $commands } commande chacun
   *[other] { $commands } commandes chacun
}
tuning-server-frames = Images du serveur
tuning-server-frames-detail = ticks du jeu et des snapshots
tuning-snapshots = Snapshots
tuning-rate-delayed = retardé par rate : { $bytes } o prennent { $ms } ms à { $rate } o/s
tuning-snaps-asks = snaps demande toutes les { $ms } ms

## The watch view

team-axis = Axe
team-allies = Alliés
team-players = Joueurs
team-spectators = Spectateurs
state-spectating = spectateur
state-not-seen = pas encore vu
state-dead = mort
state-alive = en vie
state-seen-ago = vu il y a { $seconds } s
scoreboard = Tableau des scores
col-name = Pseudo
col-score = Score
col-deaths = Morts
col-kills = Frags
col-ping = Ping
col-state = État
col-time = Temps
col-side = Camp
ping-bot = bot

play = Lecture
pause = Pause
rewind-live-now = en direct
rewind-back-10 = −10 s
rewind-position = Position dans les dernières minutes du match
rewind-live = Direct

the-world = le monde
kill-feed = Fil des frags
kills = Frags
replay = revoir
chat = Chat
server-messages = Messages du serveur

demo-unplayable = la démo n'a pas pu être lue : { $why }
demo-decoded = démo { $name } (décodée en { $ms } ms)
demo-decoding = décodage de la démo…
relay-connecting = connexion au relais…
watch-paused = en pause
watch-rewound = rembobiné, { $speed }×
watch-no-delay = sans délai
watch-delay = délai { $seconds } s
watch-viewers = { $count ->
    [one] { $count } spectateur
   *[other] { $count } spectateurs
}
watch-scores = Axe { $axis } : { $allies } Alliés
hub-joining = connexion au serveur…
hub-filling = délai en cours : première image dans { $seconds } s
hub-live = en direct
hub-refused = refusé : { $reason }
hub-refused-retrying = refusé : { $reason } (nouvel essai dans { $seconds } s)
hub-rejoining = serveur perdu : { $reason } (reconnexion dans { $seconds } s)
hub-closed = fermé

demo-position = Position dans la démo
demo-kills = Frags de la démo
demo-all-kills = Tous les frags
operator-token-prompt = Le jeton d'opérateur du relais
record = Enregistrer
record-stop = Arrêter l'enregistrement
record-stopped = arrêté : { $why }

moment-unwritable = le moment n'a pas pu être écrit
relay-answer-unreadable = la réponse du relais est illisible
moment-share = Partager ce moment
moment-from = de −
moment-to = à +
# After a number of seconds, with its space.
seconds-unit = { " " }s
moment-cutting = Découpage…
moment-link = Le lien du moment
copy = Copier
copied = Copié
open = Ouvrir

watch-none-before = Aucun match indiqué : ouvrez un serveur dans la{ " " }
watch-none-list = liste
watch-none-after = { " " }et cliquez sur Regarder.
watch-map-alt = La carte vue de dessus, chaque joueur un point : le tableau des scores liste les mêmes joueurs avec leur état
watch-fit = Ajuster

map-seen-ago = { " " }(il y a { $seconds } s)

## The server browser

detail-hint = Choisissez un serveur pour voir ses joueurs et ses réglages.
watch = Regarder
watch-directly = Regarder en direct
watch-directly-title = avec la session de la page elle-même, par la passerelle
country-none = Pas de pays : { $why }
country-unknown = Pays inconnu
address-loopback = adresse de bouclage
address-private = adresse privée
address-link-local = adresse lien-local
address-shared = adresse partagée (CGNAT)
address-reserved = adresse réservée
join = Rejoindre
join-before = { " " }ouvre le jeu avec le lanceur de{ " " }
join-after = { " " }(il enregistre les liens coduo://) ; sans lui, collez ceci dans la console :
server-password = Mot de passe du serveur
server-password-placeholder = mot de passe du serveur
detail-every-match = Tous les matchs et les classements
detail-players = Joueurs ({ $count })
ping-connecting = connexion
detail-tuning-link = Votre connexion ici
detail-tuning-after = { " " }(cadences et conseils pour vos réglages sur ce serveur)
detail-settings = Réglages
detail-find-setting = Chercher un réglage
detail-find-setting-placeholder = chercher un réglage

feed-live = en direct
feed-connecting = connexion…
masters = Serveurs maîtres
master-servers = { $count ->
    [one] { $count } serveur
   *[other] { $count } serveurs
}
master-failed-kept = { $why } ; sa dernière liste ({ $count } serveurs) est conservée, périmée
master-polling = interrogation…
master-polling-last = interrogation… (dernière liste : { $count } serveurs)
master-own = maître de ce relais : { $registered } inscrits, { $flatlined } muets, { $heartbeats } heartbeats, { $dropped } rejetés

find-player = Trouver un joueur
find-player-placeholder = une partie du pseudo
found-on = { " " }sur{ " " }
watch-list = Joueurs suivis
watch-list-placeholder = le pseudo d'un ami
notify-me = Me prévenir quand ils arrivent
watch-list-playing-on = { " " }joue sur{ " " }
watch-list-offline = { " " }hors ligne
watch-list-stop = Ne plus suivre { $name }
toast-joined = { " " }a rejoint{ " " }
dismiss = Fermer

waiting-line = { $map } · { $mode } · { $players } joueurs · ping { $ping }
waiting-loading = Chargement des joueurs et des réglages…

ago-now = à l'instant
ago-minutes = il y a { $count } min
ago-hours = il y a { $count } h
ago-days = { $count ->
    [one] il y a { $count } jour
   *[other] il y a { $count } jours
}
history-title = Fréquentation
history-range = Période
history-none = Pas encore d'historique.
seen-last-on = { " " }vu pour la dernière fois sur{ " " }

rule-humans-at-least = { $server } atteint { $count } joueurs
rule-server-up = { $server } revient
rule-server-down = { $server } tombe
rule-slot-free = une place se libère sur { $server }
rule-name-seen = { $name } apparaît
rule-match-end = un match se termine sur { $server }
rule-highlight-of = un temps fort de { $name }
rule-highlight-on = un temps fort sur { $server }
rule-play-of-the-match = l'action de chaque match sur { $server }
by-this-browser = ce navigateur
by-webhook-short = webhook
alert-no-subscription = Ce navigateur n'a pas pu s'abonner : { $why }
alert-set-done = C'est fait : vous serez prévenu quand cela arrivera.
alert-forgotten = Tout ce que le relais gardait sur vos alertes est supprimé.
join-when-free = Rejoindre quand une place se libère
join-when-free-after = { " " }vous prévient (même page fermée) dès qu'une place se libère.
alert-tell-me = Prévenez-moi quand…
alert-when = Quand
when-slot-free = une place se libère
when-humans-at-least = les joueurs atteignent
when-server-up = il revient
when-server-down = il tombe
alert-players = Joueurs
alert-by-between = { " " }par{ " " }
alert-by = Par
by-push = les notifications de ce navigateur
by-ntfy = ntfy (votre téléphone)
by-discord = un webhook Discord
by-webhook = un webhook
alert-where = Où
alert-set = Créer l'alerte
alert-yours = Vos alertes (gardées dans ce navigateur)
alert-line = { $rule } — par { $by }
alert-fired = { " " }({ $count ->
    [one] déclenchée une fois
   *[other] déclenchée { $count } fois
})
delete = Supprimer
alert-forget = Supprimer toutes mes alertes du relais

owner-asking = Interrogation du serveur…
owner-proven = Prouvé : ce serveur est à vous de le décrire.
owner-says = Le mot du propriétaire
owner-yours = C'est votre serveur ?
owner-prove-before = Prouvez-le avec le mot de passe rcon du serveur : le relais l'envoie une fois, dans un seul{ " " }
owner-prove-after = , et ne garde rien.
rcon-password = mot de passe rcon
owner-prove = Prouver
owner-saved = Enregistré.
owner-given-up = Abandonné : le serveur n'a plus de propriétaire ici.
owner-description = Description
owner-links = Liens, un par ligne : un titre, puis une URL https
owner-banner-colours = Couleurs de la bannière
owner-background = fond
owner-text = texte
owner-accent = accent
owner-discord = Webhook Discord pour le démarrage, la panne, le serveur plein et les résultats des matchs
owner-discord-set = défini (laisser vide pour le garder)
owner-follow = { " " }Suivre les matchs de ce serveur pour les statistiques
owner-play-of-the-match = { " " }Aussi l'action de chaque match suivi (une carte avec son image et son clip)
save = Enregistrer
owner-give-up = Renoncer à la propriété

join-check = Tester l'accès
join-checking = Test…
refresh-now = Actualiser
refresh-asking = Interrogation…
refresh-answered = a répondu en { $ms } ms par la passerelle : { $map }, { $clients }/{ $max } joueurs

tab-all = Tous les serveurs
tab-favorites = Favoris
tab-recent = Vus récemment
progress = Progression de l'actualisation
progress-refreshed = actualisé : { $answered }/{ $total } ont répondu
progress-refreshing = actualisation : { $answered }/{ $total } ont répondu
col-server = Serveur
col-map = Carte
col-mode = Mode
col-mod = Mod
col-players = Joueurs
col-matches = Matchs
col-flags = Options
col-seen = Vu
col-favorite = Favori

filters = Filtres
filters-set = Filtres ({ $count })
tri-any = peu importe
tri-yes = oui
tri-no = non
country-none-option = aucun (privé ou inconnu) ({ $count })
search = Rechercher
search-placeholder = serveur, carte ou joueur
filter-all = tous
filter-country = Pays/région
filter-max-ping = Ping max.
filter-empty = vides
filter-full = pleins
filter-answering = qui répondent seulement
filter-long-down = longtemps hors ligne
filter-password = Mot de passe
filter-pure = Pure
filter-dedicated = Dédié
filter-punkbuster = PunkBuster
filter-friendly-fire = Tir allié
filter-killcam = Killcam
filter-jeeps = Jeeps
filter-tanks = Chars
filter-reset = Réinitialiser

list-summary = { $total } serveurs, { $answering } répondent, { $shown } affichés

matches-today-title = Matchs suivis ces dernières 24 heures
flag-password = Mot de passe requis
flag-password-short = MDP
age-title = Temps depuis la dernière réponse du serveur
ping-down = hors ligne
ping-bad-reply = réponse invalide
ping-stale = périmé
ping-ms = { $ms }
not-known = —
nothing = { "" }
age-seconds = { $seconds } s
age-minutes = { $minutes } min

sources = { $masters } · { $servers ->
    [one] { $servers } serveur
   *[other] { $servers } serveurs
}
masters-none = aucun maître
master-answering = le maître répond
master-not-answering = le maître ne répond pas
masters-answering = { $answering } maîtres sur { $count } répondent
master-error-resolve = son nom ne se résout pas
master-error-silent = n'a pas répondu
master-error-unreachable = est injoignable
master-error-unreadable = a répondu quelque chose d'illisible

matches-none-here = Aucun match suivi ici pour l'instant.
matches-recent = Matchs récents
matches-week-best = Les meilleurs de la semaine en { $mode }
match-followed = suivi en cours
match-finished = terminé
match-ended-map-change = terminé par un changement de carte
match-ended-map-restart = terminé par un redémarrage de carte
match-unfinished = inachevé (suivi en partie)
match-result-teams = Axe { $axis } – { $allies } Alliés
match-result-winner = gagné par { $name }
played-hours = { $hours } h { $minutes } min
played-clock = { $clock }

wulfram-servers = Serveurs Wulfram II
col-address = Adresse
col-status = État
col-rtt = RTT
wulfram-online = en ligne
wulfram-unreachable = injoignable
wulfram-checking = vérification…

share-link = Lien
share-signature = Signature (350×20)
share-widget = Widget
share-summary = Partager : lien, bannière, widget
share-banner-alt = La bannière de ce serveur

## The match and player pages

match-missing = Ce match n'existe pas
match-demo = démo
match-live = en direct : mis à jour toutes les 5 s
match-rounds = Manches
match-score-chart = Le score au fil du match
match-heatmap = Frags (rouge) et morts (bleu), vus de dessus
match-who-killed-whom = Qui a tué qui
match-weapons = Armes
col-weapon = Arme
col-suicides = Suicides
col-team-kills = Tirs alliés mortels
col-round = Manche
col-won-by = Gagnée par
col-at = À
feed-filter = fil
feed-filter-title = seulement les frags et morts de ce pseudo dans le fil
matrix-corner = tueur ↓ victime →
kill-moment-title = ce frag dans la démo, 3 s avant
feed-only-before = Seulement les frags et morts de{ " " }
feed-only-after = { " " }·{ " " }
feed-show-all = tout afficher
feed-every-kill = Tous les frags, dans l'ordre
side-free = libre
side-axis = Axe
side-allies = Alliés
side-spectator = spectateur
kill-kind-kill = frag
kill-kind-team = tir allié
kill-kind-suicide = suicide
kill-kind-world = le monde
date-time-utc = { $day }/{ $month }/{ $year } { $hour }:{ $minute } UTC

player-missing = Aucun match suivi ne connaît ce pseudo
player-rating-chart = Classement en { $mode } après chaque match classé ; les classements se font sur la ligne du bas
player-last-seen = Vu pour la dernière fois le { $when } sur { $server }
col-kd = K/D
col-time-played = Temps de jeu
col-won = Gagnés
col-lost = Perdus
player-ratings = Classements
col-rating = Note
col-ranked-as = Classé comme
col-rated-matches = Matchs classés
player-unrated = Classé après un match terminé.
player-maps = Cartes
col-when = Quand
col-result = Résultat
col-place = Place

## The demo player

demo-file-unreadable = le fichier n'a pas pu être lu : { $why }
demos-intro-open = Ouvrez une démo{ " " }
demos-intro-from = { " " }d'origine (du dossier{ " " }
demos-intro-rest = { " " }d'un client ou de ce relais), ou déposez-la sur la page. Elle est décodée ici, dans la page.
demos-open-file = Ouvrir un fichier de démo{ " " }
demos-recorded = Enregistrées par ce relais
demos-none = Aucune pour l'instant.
download = télécharger

## The admin console

admin-password-first = saisissez d'abord le mot de passe rcon du serveur
admin-title = Console d'administration
admin-ready = Les commandes partent vers le serveur une par une, comme son rcon le permet.
admin-connecting = Connexion au relais…
admin-map = carte
admin-message = message
admin-say = say
admin-players-caption = { $count } sur { $map }
admin-kick = Expulser
col-slot = Slot
admin-closed = le relais a fermé la console
admin-closed-reload = Le relais a fermé la console ; rechargez la page pour vous reconnecter.
admin-output-cut = (sortie coupée : plus longue que ce que garde le relais)
admin-bad-password = Mauvais mot de passe rcon.
admin-no-password = Le serveur n'a pas de mot de passe rcon : rcon y est désactivé.

## Errors

relay-silent = le relais n'a pas répondu
relay-not-a-response = ce n'est pas une réponse

alert-no-push-key = le relais ne propose pas de clé push
alert-unreadable-subscription = un abonnement illisible

worker-not-started = le worker de session n'a pas démarré : { $why }
worker-script-missing = son script ne s'est pas chargé

worker-failed = le worker de session a échoué : { $why }

ms = { $ms } ms

kilobytes = { $kb } Ko

## Titles of the pages the page itself titles

title-admin = Muster : console d'administration
title-tuning = Muster : réglages réseau
title-watch = Muster : regarder un match
title-demos = Muster : démos CoD:UO

## The relay's first screen and plain list

title-servers = Muster : navigateur de serveurs CoD:UO
description-servers = Tous les serveurs Call of Duty: United Offensive 1.51 en ligne avec leur carte, leur mode, leurs joueurs et leur ping : retrouvez vos amis, rejoignez-les et regardez les matchs en direct dans le navigateur.
plain-every = Tous les serveurs, en liste simple
plain-every-count = Tous les serveurs ({ $count }), en liste simple
plain-title = Muster : serveurs CoD:UO, page { $page } sur { $pages }
plain-summary = { $shown } serveurs sur { $total } · page { $page } sur { $pages }
plain-previous = ← Précédente
plain-next = Suivante →
card-players = { $players } joueurs

matches-on = Matchs sur { $server }
period-week = Cette semaine
period-month = Ce mois-ci
period-all = Depuis toujours
board-month = Les meilleurs du mois en { $mode }
board-all = Les meilleurs de tous les temps en { $mode }
matches-intro = Tous les matchs suivis par ce relais, du plus récent au plus ancien. Un match est suivi tant que quelqu'un le regarde, et toujours sur les serveurs suivis par l'opérateur.
matches-none = Aucun match suivi pour l'instant.
matches-description = { $count } matchs récents suivis par ce relais
board-empty = Personne de classé n'a encore joué { $count } matchs sur cette période.
match-title = { $map } sur { $server } : { $result }
match-description = { $mode } { $when }, { $kills } frags par { $names } joueurs ; { $ended }
player-rated = ; classé { $rating } ± { $spread } en { $mode }
player-description = { $kills } frags, { $deaths } morts en { $matches } matchs ({ $won } gagnés)
player-rating-chart-any = Classement après chaque match classé ; les classements se font sur la ligne du bas

## Moments

moment-headline-none = { $seconds } s sur { $map }
moment-headline-kill = { $attacker } a tué { $victim } ({ $weapon })
moment-headline-kills = { $count } frags en { $seconds } s sur { $map }
seconds = { $seconds } s
moment-still = Où chacun se trouvait sur { $map }
moment-kill = { $attacker } a tué { $victim } ({ $weapon })
moment-download = Télécharger le clip (.dm_3)
moment-whole-match = Le match entier
moment-description = Un moment de { $seconds } secondes sur { $map }, serveur { $server }, à revoir dans le navigateur ou dans le jeu.

## Added with the no-English check

admin-close = Fermer la console d'administration
admin-tab = Admin
admin-not-connected = la console n'est pas connectée
admin-command = commande de console
admin-not-opened = la console n'a pas pu s'ouvrir : { $why }
sparkline-title = Joueurs sur tous les serveurs, dernières 24 h
countries-credit = Pays :{ " " }
back-demos = ← Démos
back-servers = ← Serveurs
not-listed = aucun serveur de ce nom ici
match-records-unavailable = les données des matchs sont indisponibles
moment-missing = ce moment n'existe pas
moment-expired = ce moment n'existe pas (ou il a expiré)
moments-unavailable = les moments sont indisponibles
title-suffix = { " " }· Muster

## The tuning guide's advice and profiles

advice-snaps_above_server_rate = snaps { $snaps } demande un snapshot toutes les { $asked } ms, mais un serveur à { $hz } Hz (images de { $frame } ms) ne peut en livrer qu'un toutes les { $every } ms (environ { $rate }/s). { $then }
advice-no-extra-snapshots = En demander plus ne donne ici aucun snapshot de plus.
advice-align-snaps = Réglez snaps sur le sv_fps du serveur (30 au plus) pour que les intervalles s'alignent.
advice-rate_delays_large_snapshots = À un débit effectif de { $rate } octets/s, un snapshot compté de { $bytes } octets prend { $takes } ms, plus que les { $asked } ms demandées par snaps : les snapshots tombent à un toutes les { $every } ms (environ { $per_second }/s). Seuls les snapshots d'environ { $fits } octets au plus évitent le retard ; montez rate (ou le sv_maxRate du serveur) si la liaison le permet, ou baissez snaps.
advice-cl_maxpackets_unaligned = cl_maxpackets { $maxpackets } ({ $threshold } ms) n'est atteint qu'à l'image { $frame } de { $frame_ms } ms à com_maxfps { $maxfps } : environ { $per_second } paquets/s, et non { $maxpackets }. cl_maxpackets { $aligned } donne la même cadence ; une paire alignée et régulière comme 125/62 ou 100/100 est plus prévisible.
advice-usercmd_budget_exceeded = (1 + cl_packetdup { $packetdup }) × { $frames } images par paquet = { $commands } commandes joueur, au-delà des 32 qu'un paquet transporte : le client affiche MAX_PACKET_USERCMDS et ne garde que les 32 plus récentes. Augmentez la cadence des paquets, baissez com_maxfps ou réduisez cl_packetdup.
advice-usercmd_budget_near_limit = { $commands } commandes joueur par paquet, c'est proche de la limite de 32 ; restez nettement en dessous.
advice-packetdup_high = cl_packetdup { $packetdup } sert en cas de pertes avérées ; 1 est la valeur équilibrée par défaut et 2 couvre des pertes visibles. Plus de duplication ne baisse ni le ping ni la gigue des snapshots.
advice-packetdup_zero = cl_packetdup 0 envoie chaque commande joueur une seule fois : très bien sur une liaison propre et limitée en débit, mais un paquet perdu perd ses commandes.
advice-sv_fps_above_snapshot_ceiling = sv_fps { $fps } change la cadence des mises à jour du jeu, mais les clients ne peuvent demander plus de 30 snapshots/s, et les échéances s'arrondissent à des images entières de { $frame } ms.
advice-time_nudge_behind = cl_timeNudge { $nudge } ms décale l'affichage en arrière de la chronologie du serveur ; cela ne change ni les paquets, ni les snapshots, ni le ping. 0 est la bonne valeur par défaut.
advice-time_nudge_ahead = cl_timeNudge { $nudge } ms décale l'affichage en avant de la chronologie du serveur ; cela ne change ni les paquets, ni les snapshots, ni le ping. 0 est la bonne valeur par défaut.
advice-snaps_below_server_rate = snaps { $snaps } demande moins de snapshots que le serveur ne pourrait en envoyer ; montez-le au niveau de sv_fps { $fps } si le débit le permet.
profile-stock-baseline = Réglages d'origine
profile-stock-baseline-tradeoff = Débit économe ; déjà aligné sur le serveur d'origine à 20 Hz.
profile-balanced-broadband = Haut débit équilibré
profile-balanced-broadband-tradeoff = Environ 62,5 paquets sortants/s, avec assez de marge en réception pour le pire paquet compté à 30 snapshots/s.
profile-minimum-batching = Paquets de commandes minimaux
profile-minimum-batching-tradeoff = Une occasion d'envoi par image client de 10 ms ; plus de surcoût par paquet et plus de travail pour le serveur.
profile-constrained = Connexion limitée
profile-constrained-tradeoff = Moins de datagrammes et moins de débit du serveur vers le client ; les gros snapshots peuvent être retardés par rate.

## Banners and the widget

banner-online = en ligne
banner-asking = interrogation
banner-players = joueurs

# Alerts as the relay sends them (Discord, ntfy, push, webhook text)
alert-a-server = un serveur
alert-humans = { $server } a { $count } { $count ->
    [one] joueur
   *[other] joueurs
} (alerte à { $at })
alert-server-up = { $server } est de nouveau en ligne
alert-server-down = { $server } ne répond plus
alert-slot-free = { $server } a une place libre ({ $players }/{ $max })
alert-name-on = { $name } est sur { $server }
alert-name-left = { $name } a quitté le serveur
alert-other = { $server } : alerte
alert-last-seen = { $seen } (vu pour la dernière fois { $ago })
alert-match-over = Match terminé sur { $server } : { $map } { $mode }
alert-highlight = { $kind } de { $player } sur { $map } ({ $server }) : { $score } points
alert-play-of-the-match = Action du match sur { $map } ({ $server }) : { $kind } de { $player }, { $score } points
alert-match-score = { $over }, { team-axis } { $axis } : { team-allies } { $allies }
alert-bots = { " " }(+{ $count } { $count ->
    [one] bot
   *[other] bots
})
alert-footer = Alerte Muster { $key }

# Join check: what a player would meet
join-server-said = { $what } (le serveur a répondu « { $text } »)
join-free-slot = une place est libre : vous pouvez rejoindre
join-full = le serveur est plein
join-password = un mot de passe est requis
join-wrong-protocol = le serveur utilise un autre protocole
join-banned = vous êtes banni
join-refused = le serveur a refusé
join-no-answer = pas de réponse
ask-failed = Impossible d'interroger le serveur : { $why }

## Highlights

highlights-title = Temps forts
highlights-description = Les meilleures actions des matchs suivis par ce relais : séries, enchaînements, tirs de loin, premiers sangs et clutchs, chacune en clip.
highlights-today = Les meilleurs du jour
highlights-week = Les meilleurs de la semaine
highlights-latest = Les plus récents
highlights-none = Pas encore de temps forts : ils apparaissent pendant les matchs suivis.
highlights-all-kinds = Tous les types
highlights-on-server = Sur { $server }
play-of-the-match = Action du match
player-highlights = Temps forts
highlight-watch = Voir le clip
highlight-no-clip = pas de clip
highlight-score = { $score } points
highlight-by = { $kind } de { $player }
highlight-triple = Triplé
highlight-quad = Quadruplé
highlight-rampage = Carnage
highlight-streak = Série
highlight-long-shot = Tir de loin
highlight-first-blood = Premier sang
highlight-clutch = Clutch

## The API's page (/api/)
api-title = L’API
api-description = Chaque opération de l’API HTTP de ce relais : ses paramètres, un exemple de requête et de réponse, et la description OpenAPI pour en générer un client.
api-lead = Chaque opération de l’API de ce relais, avec un exemple de requête et de réponse. La même chose en OpenAPI 3.1, pour en générer un client :
api-needs-token = Demande un jeton : celui de l’opérateur, ou la session d’un propriétaire.
api-parameters = Paramètres
api-parameter-name = Nom
api-parameter-in = Où
api-parameter-about = Description
api-example-request = Exemple de requête
api-example-answer = Exemple de réponse
