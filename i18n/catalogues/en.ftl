# Muster's words in English: the catalogue every other language follows, message by message.
# A message another catalogue lacks is said in English (i18n/tests/catalogues.rs fails on it).

## The header every page shares

nav-pages = Pages
nav-servers = Servers
nav-tuning = Tuning
nav-demos = Demos
nav-matches = Matches
nav-highlights = Highlights
language = Language
language-go = Go
subtitle-servers = Call of Duty: United Offensive 1.51 servers
subtitle-tuning = Call of Duty: United Offensive 1.51 network tuning
subtitle-watch = Call of Duty: United Offensive 1.51 matches
subtitle-moment = A moment of a Call of Duty: United Offensive match
subtitle-demos = Call of Duty: United Offensive 1.51 demos
subtitle-matches = Call of Duty: United Offensive 1.51 matches
subtitle-highlights = Call of Duty: United Offensive 1.51 highlights
subtitle-api = Call of Duty: United Offensive 1.51 server API

## Pieces several pages draw

favorite-remove = Remove from favorites
favorite-add = Add to favorites

country-is = Country: { $code }

notify-is-playing = { $name } is playing

## Tuning

tuning-title = Network tuning
tuning-intro = How stock UO 1.51 turns your settings and a server's into packets and snapshots. Your settings are kept in this browser.
tuning-your-settings = Your settings
tuning-lan = LAN server
tuning-the-server = The server
tuning-snapshot-bytes = snapshot bytes
tuning-stock-defaults = Stock defaults
tuning-recommended = Recommended on this server
tuning-your-connection = Your connection on { $addr }
tuning-published = sv_fps { $fps } (published), sv_maxRate { $rate }
tuning-not-published = sv_fps not published: stock 20 assumed; sv_maxRate { $rate }
tuning-no-warnings = No warnings: these settings suit this server.
tuning-per-second = { $rate }/s
tuning-every-ms = every { $ms } ms
tuning-client-frames = Client frames
tuning-client-frames-detail = one user command each
tuning-client-packets = Client packets
tuning-client-packets-detail = { $frames ->
    [one] { $frames } frame apart
   *[other] { $frames } frames apart
}, { $commands ->
    [one] { $commands } command each
   *[other] { $commands } commands each
}
tuning-server-frames = Server frames
tuning-server-frames-detail = game and snapshot ticks
tuning-snapshots = Snapshots
tuning-rate-delayed = rate-delayed: { $bytes } B take { $ms } ms at { $rate } B/s
tuning-snaps-asks = snaps asks every { $ms } ms

## The watch view

team-axis = Axis
team-allies = Allies
team-players = Players
team-spectators = Spectators
state-spectating = spectating
state-not-seen = not seen yet
state-dead = dead
state-alive = alive
state-seen-ago = seen { $seconds } s ago
scoreboard = Scoreboard
col-name = Name
col-score = Score
col-deaths = Deaths
col-kills = Kills
col-ping = Ping
col-state = State
col-time = Time
col-side = Side
ping-bot = bot

play = Play
pause = Pause
rewind-live-now = live
rewind-back-10 = −10 s
rewind-position = Position in the last minutes of the match
rewind-live = Live

the-world = the world
kill-feed = Kill feed
kills = Kills
replay = replay
chat = Chat
server-messages = Server messages

demo-unplayable = the demo could not be played: { $why }
demo-decoded = demo { $name } (decoded in { $ms } ms)
demo-decoding = decoding the demo…
relay-connecting = connecting to the relay…
watch-paused = paused
watch-rewound = rewound, { $speed }x
watch-no-delay = no delay
watch-delay = delay { $seconds } s
watch-viewers = { $count } watching
watch-scores = Axis { $axis } : { $allies } Allies
hub-joining = joining the server…
hub-filling = delay filling: first picture in { $seconds } s
hub-live = live
hub-refused = refused: { $reason }
hub-refused-retrying = refused: { $reason } (retrying in { $seconds } s)
hub-rejoining = lost the server: { $reason } (rejoining in { $seconds } s)
hub-closed = closed

demo-position = Position in the demo
demo-kills = Kills in the demo
demo-all-kills = All kills
operator-token-prompt = The relay's operator token
record = Record
record-stop = Stop recording
record-stopped = stopped: { $why }

moment-unwritable = the moment could not be written
relay-answer-unreadable = the relay's answer did not read
moment-share = Share this moment
moment-from = from −
moment-to = to +
# After a number of seconds, with its space.
seconds-unit = { " " }s
moment-cutting = Cutting…
moment-link = The moment's link
copy = Copy
copied = Copied
open = Open

watch-none-before = No match named: open a server in the{ " " }
watch-none-list = list
watch-none-after = { " " }and press Watch.
watch-map-alt = The map from above, each player a dot: the scoreboard lists the same players with their state
watch-fit = Fit

map-seen-ago = { " " }({ $seconds } s ago)

## The server browser

detail-hint = Select a server to see its players and settings.
watch = Watch
watch-directly = Watch directly
watch-directly-title = with the page's own session, through the bridge
country-none = No country: { $why }
country-unknown = Country unknown
address-loopback = a loopback address
address-private = a private address
address-link-local = a link-local address
address-shared = a shared (carrier-grade NAT) address
address-reserved = a reserved address
join = Join
join-before = { " " }opens the game with{ " " }
join-after = 's launcher (it registers coduo:// links); without it, paste this in the console:
server-password = Server password
server-password-placeholder = server password
detail-every-match = Every match and the leaderboards
detail-players = Players ({ $count })
ping-connecting = connecting
detail-tuning-link = Your connection here
detail-tuning-after = { " " }(clocks and advice for your settings on this server)
detail-settings = Settings
detail-find-setting = Find a setting
detail-find-setting-placeholder = find a setting

feed-live = live
feed-connecting = connecting…
masters = Master servers
master-servers = { $count ->
    [one] { $count } server
   *[other] { $count } servers
}
master-failed-kept = { $why }; its last list ({ $count } servers) is kept, stale
master-polling = polling…
master-polling-last = polling… (last list: { $count } servers)
master-own = this relay's master: { $registered } registered, { $flatlined } flatlined, { $heartbeats } heartbeats, { $dropped } dropped

find-player = Find player
find-player-placeholder = part of a name
found-on = { " " }on{ " " }
watch-list = Watch list
watch-list-placeholder = a friend's name
notify-me = Notify me when they join
watch-list-playing-on = { " " }playing on{ " " }
watch-list-offline = { " " }not online
watch-list-stop = Stop watching { $name }
toast-joined = { " " }joined{ " " }
dismiss = Dismiss

waiting-line = { $map } · { $mode } · { $players } players · ping { $ping }
waiting-loading = Loading its players and settings…

ago-now = just now
ago-minutes = { $count } min ago
ago-hours = { $count } h ago
ago-days = { $count ->
    [one] { $count } day ago
   *[other] { $count } days ago
}
history-title = Population
history-range = Range
history-none = No history yet.
seen-last-on = { " " }last seen on{ " " }

rule-humans-at-least = { $server } reaches { $count } players
rule-server-up = { $server } comes up
rule-server-down = { $server } goes down
rule-slot-free = { $server } has a free slot
rule-name-seen = { $name } appears
rule-match-end = a match on { $server } ends
rule-highlight-of = a highlight by { $name }
rule-highlight-on = a highlight on { $server }
rule-play-of-the-match = each match's play of the match on { $server }
by-this-browser = this browser
by-webhook-short = webhook
alert-no-subscription = This browser could not subscribe: { $why }
alert-set-done = Set: you will be told when it happens.
alert-forgotten = Everything the relay kept about your alerts is deleted.
join-when-free = Join when a slot frees
join-when-free-after = { " " }tells you (with the page closed) the moment one does.
alert-tell-me = Tell me when…
alert-when = When
when-slot-free = a slot frees
when-humans-at-least = players reach
when-server-up = it comes up
when-server-down = it goes down
alert-players = Players
alert-by-between = { " " }by{ " " }
alert-by = By
by-push = this browser's notifications
by-ntfy = ntfy (your phone)
by-discord = a Discord webhook
by-webhook = a webhook
alert-where = Where
alert-set = Set alert
alert-yours = Your alerts (kept in this browser)
alert-line = { $rule } — by { $by }
alert-fired = { " " }(fired { $count ->
    [one] once
   *[other] { $count } times
})
delete = Delete
alert-forget = Delete all my alerts from the relay

owner-asking = Asking the server…
owner-proven = Proven: this server is yours to describe.
owner-says = From its owner
owner-yours = Is this your server?
owner-prove-before = Prove it with the server's rcon password: the relay sends it once, in one{ " " }
owner-prove-after = , and keeps nothing.
rcon-password = rcon password
owner-prove = Prove
owner-saved = Saved.
owner-given-up = Given up: the server has no owner here now.
owner-description = Description
owner-links = Links, one per line: a title, then an https URL
owner-banner-colours = Banner colours
owner-background = background
owner-text = text
owner-accent = accent
owner-discord = Discord webhook for this server's up, down, full and match results
owner-discord-set = set (leave empty to keep)
owner-follow = { " " }Follow this server's matches for statistics
owner-play-of-the-match = { " " }Also each followed match's play of the match (a card with its still and clip)
save = Save
owner-give-up = Give up ownership

join-check = Join check
join-checking = Checking…
refresh-now = Refresh now
refresh-asking = Asking…
refresh-answered = answered in { $ms } ms through the bridge: { $map }, { $clients }/{ $max } players

tab-all = All servers
tab-favorites = Favorites
tab-recent = Recently viewed
progress = Refresh progress
progress-refreshed = refreshed: { $answered }/{ $total } answered
progress-refreshing = refreshing: { $answered }/{ $total } answered
col-server = Server
col-map = Map
col-mode = Mode
col-mod = Mod
col-players = Players
col-matches = Matches
col-flags = Flags
col-seen = Seen
col-favorite = Favorite

filters = Filters
filters-set = Filters ({ $count })
tri-any = any
tri-yes = yes
tri-no = no
country-none-option = none (private or unknown) ({ $count })
search = Search
search-placeholder = server, map or player
filter-all = all
filter-country = Country/region
filter-max-ping = Max ping
filter-empty = empty
filter-full = full
filter-answering = answering only
filter-long-down = long down
filter-password = Password
filter-pure = Pure
filter-dedicated = Dedicated
filter-punkbuster = PunkBuster
filter-friendly-fire = Friendly fire
filter-killcam = Killcam
filter-jeeps = Jeeps
filter-tanks = Tanks
filter-reset = Reset

list-summary = { $total } servers, { $answering } answering, { $shown } shown

matches-today-title = Matches followed in the last 24 hours
flag-password = Password required
flag-password-short = PW
age-title = Time since the server last answered
ping-down = down
ping-bad-reply = bad reply
ping-stale = stale
ping-ms = { $ms }
not-known = —
nothing = { "" }
age-seconds = { $seconds } s
age-minutes = { $minutes } min

sources = { $masters } · { $servers ->
    [one] { $servers } server
   *[other] { $servers } servers
}
masters-none = no master
master-answering = the master answering
master-not-answering = the master not answering
masters-answering = { $answering } of { $count } masters answering
master-error-resolve = its name does not resolve
master-error-silent = did not answer
master-error-unreachable = cannot be reached
master-error-unreadable = answered with something unreadable

matches-none-here = No match followed here yet.
matches-recent = Recent matches
matches-week-best = This week's best at { $mode }
match-followed = being followed
match-finished = finished
match-ended-map-change = ended by a map change
match-ended-map-restart = ended by a map restart
match-unfinished = unfinished (followed in part)
match-result-teams = Axis { $axis } – { $allies } Allies
match-result-winner = won by { $name }
played-hours = { $hours } h { $minutes } min
played-clock = { $clock }

wulfram-servers = Wulfram II servers
col-address = Address
col-status = Status
col-rtt = RTT
wulfram-online = online
wulfram-unreachable = unreachable
wulfram-checking = checking…

share-link = Link
share-signature = Signature (350x20)
share-widget = Widget
share-summary = Share: link, banner, widget
share-banner-alt = This server's banner

## The match and player pages

match-missing = No such match
match-demo = demo
match-live = live: updated every 5 s
match-rounds = Rounds
match-score-chart = The score over the match
match-heatmap = Kills made (red) and deaths (blue), seen from above
match-who-killed-whom = Who killed whom
match-weapons = Weapons
col-weapon = Weapon
col-suicides = Suicides
col-team-kills = Team kills
col-round = Round
col-won-by = Won by
col-at = At
feed-filter = feed
feed-filter-title = only this name's kills and deaths in the feed
matrix-corner = killer ↓ victim →
kill-moment-title = this kill in the demo, from 3 s before
feed-only-before = Only{ " " }
feed-only-after = 's kills and deaths ·{ " " }
feed-show-all = show all
feed-every-kill = Every kill, in order
side-free = free
side-axis = axis
side-allies = allies
side-spectator = spectator
kill-kind-kill = kill
kill-kind-team = team kill
kill-kind-suicide = suicide
kill-kind-world = world
date-time-utc = { $year }-{ $month }-{ $day } { $hour }:{ $minute } UTC

player-missing = No followed match has this name
player-rating-chart = Rating in { $mode } after each rated match; lists rank by the lower line
player-last-seen = Last seen { $when } on { $server }
col-kd = K/D
col-time-played = Time played
col-won = Won
col-lost = Lost
player-ratings = Ratings
col-rating = Rating
col-ranked-as = Ranked as
col-rated-matches = Rated matches
player-unrated = Rated after a finished match.
player-maps = Maps
col-when = When
col-result = Result
col-place = Place

## The demo player

demo-file-unreadable = the file could not be read: { $why }
demos-intro-open = Open a stock{ " " }
demos-intro-from = { " " }(from a client's{ " " }
demos-intro-rest = { " " }or this relay), or drop one on the page. It is decoded here, in the page.
demos-open-file = Open a demo file{ " " }
demos-recorded = Recorded by this relay
demos-none = None yet.
download = download

## The admin console

admin-password-first = enter the server's rcon password first
admin-title = Admin console
admin-ready = Commands go to the server one at a time, as its rcon allows.
admin-connecting = Connecting to the relay…
admin-map = map
admin-message = message
admin-say = say
admin-players-caption = { $count } on { $map }
admin-kick = Kick
col-slot = Slot
admin-closed = the relay closed the console
admin-closed-reload = The relay closed the console; reload to reconnect.
admin-output-cut = (output cut: longer than the relay keeps)
admin-bad-password = Bad rconpassword.
admin-no-password = The server has no rcon password set: rcon is off there.

## Errors

relay-silent = the relay did not answer
relay-not-a-response = not a response

alert-no-push-key = the relay offers no push key
alert-unreadable-subscription = an unreadable subscription

worker-not-started = the session worker did not start: { $why }
worker-script-missing = its script did not load

worker-failed = the session worker failed: { $why }

ms = { $ms } ms

kilobytes = { $kb } KB

## Titles of the pages the page itself titles

title-admin = Muster: admin console
title-tuning = Muster: network tuning
title-watch = Muster: watch a match
title-demos = Muster: CoD:UO demos

## The relay's first screen and plain list

title-servers = Muster: CoD:UO server browser
description-servers = Every live Call of Duty: United Offensive 1.51 server with its map, mode, players and ping: find your friends, join, and watch matches live in the browser.
plain-every = Every server, as a plain list
plain-every-count = Every server ({ $count }), as a plain list
plain-title = Muster: CoD:UO servers, page { $page } of { $pages }
plain-summary = { $shown } of { $total } servers · page { $page } of { $pages }
plain-previous = ← Previous
plain-next = Next →
card-players = { $players } players

matches-on = Matches on { $server }
period-week = This week
period-month = This month
period-all = All time
board-month = This month's best at { $mode }
board-all = All-time best at { $mode }
matches-intro = Every match this relay followed, newest first. A match is followed while someone watches it, and always on the servers the operator follows.
matches-none = No match followed yet.
matches-description = { $count } recent matches followed by this relay
board-empty = Nobody rated has played { $count } matches in this period yet.
match-title = { $map } on { $server }: { $result }
match-description = { $mode } { $when }, { $kills } kills by { $names } names; { $ended }
player-rated = ; rated { $rating } ± { $spread } in { $mode }
player-description = { $kills } kills, { $deaths } deaths in { $matches } matches ({ $won } won)
player-rating-chart-any = Rating after each rated match; lists rank by the lower line

## Moments

moment-headline-none = { $seconds } s on { $map }
moment-headline-kill = { $attacker } killed { $victim } ({ $weapon })
moment-headline-kills = { $count } kills in { $seconds } s on { $map }
seconds = { $seconds } s
moment-still = Where everyone stood on { $map }
moment-kill = { $attacker } killed { $victim } ({ $weapon })
moment-download = Download the clip (.dm_3)
moment-whole-match = The whole match
moment-description = A { $seconds }-second moment of { $map } on { $server }, playable in the browser or in the game.

## Added with the no-English check

admin-close = Close the admin console
admin-tab = Admin
admin-not-connected = the console is not connected
admin-command = console command
admin-not-opened = the console did not open: { $why }
sparkline-title = Players on every server, last 24 h
countries-credit = Countries:{ " " }
back-demos = ← Demos
back-servers = ← Servers
not-listed = no such server listed here
match-records-unavailable = match records are unavailable
moment-missing = no such moment
moment-expired = no such moment (or it has expired)
moments-unavailable = moments are unavailable
title-suffix = { " " }· Muster

## The tuning guide's advice and profiles

advice-snaps_above_server_rate = snaps { $snaps } asks for a snapshot every { $asked } ms, but a { $hz } Hz server ({ $frame } ms frames) can only deliver one every { $every } ms (about { $rate }/s). { $then }
advice-no-extra-snapshots = Asking for more gives no extra snapshots here.
advice-align-snaps = Choose snaps equal to the server's sv_fps (at most 30) so the intervals align.
advice-rate_delays_large_snapshots = At an effective rate of { $rate } bytes/s a { $bytes }-byte charged snapshot takes { $takes } ms, longer than the { $asked } ms snaps asks for: snapshots fall to one every { $every } ms (about { $per_second }/s). Only snapshots up to about { $fits } bytes avoid the delay; raise rate (or the server's sv_maxRate) if the path can carry it, or lower snaps.
advice-cl_maxpackets_unaligned = cl_maxpackets { $maxpackets } ({ $threshold } ms) is first met on frame { $frame } of { $frame_ms } ms at com_maxfps { $maxfps }: about { $per_second } packets/s, not { $maxpackets }. cl_maxpackets { $aligned } gives the same cadence; a steady aligned pair such as 125/62 or 100/100 is more predictable.
advice-usercmd_budget_exceeded = (1 + cl_packetdup { $packetdup }) x { $frames } frames per packet = { $commands } user commands, over the 32 a packet carries: the client prints MAX_PACKET_USERCMDS and keeps only the newest 32. Raise the packet cadence, lower com_maxfps, or reduce cl_packetdup.
advice-usercmd_budget_near_limit = { $commands } user commands per packet is close to the 32-command cap; keep it comfortably below.
advice-packetdup_high = cl_packetdup { $packetdup } is for diagnosed loss; 1 is the balanced default and 2 covers visible loss. More duplication does not lower ping or snapshot jitter.
advice-packetdup_zero = cl_packetdup 0 sends each user command once: fine on a clean, bandwidth-constrained uplink, but a lost packet loses its commands.
advice-sv_fps_above_snapshot_ceiling = sv_fps { $fps } changes the game-update cadence, but clients cannot ask for more than 30 snapshots/s, and due times round up to whole { $frame } ms frames.
advice-time_nudge_behind = cl_timeNudge { $nudge } ms moves presentation behind the server timeline; it does not change packets, snapshots or ping. 0 is the right default.
advice-time_nudge_ahead = cl_timeNudge { $nudge } ms moves presentation ahead of the server timeline; it does not change packets, snapshots or ping. 0 is the right default.
advice-snaps_below_server_rate = snaps { $snaps } asks for fewer snapshots than the server could send; raise it to match sv_fps { $fps } if bandwidth allows.
profile-stock-baseline = Stock baseline
profile-stock-baseline-tradeoff = Conservative bandwidth use; already aligned with the stock 20 Hz server.
profile-balanced-broadband = Balanced broadband
profile-balanced-broadband-tradeoff = About 62.5 outgoing packets/s with enough receive allowance for the worst scheduler-accounted packet at 30 snapshots/s.
profile-minimum-batching = Minimum command batching
profile-minimum-batching-tradeoff = One packet opportunity per 10 ms client frame; more packet overhead and server packet-processing work.
profile-constrained = Constrained connection
profile-constrained-tradeoff = Fewer datagrams and a lower server-to-client allowance; large snapshots can be rate-delayed.

## Banners and the widget

banner-online = online
banner-asking = asking
banner-players = players

# Alerts as the relay sends them (Discord, ntfy, push, webhook text)
alert-a-server = a server
alert-humans = { $server } has { $count } { $count ->
    [one] player
   *[other] players
} (alert at { $at })
alert-server-up = { $server } is up again
alert-server-down = { $server } stopped answering
alert-slot-free = { $server } has a free slot ({ $players }/{ $max })
alert-name-on = { $name } is on { $server }
alert-name-left = { $name } left
alert-other = { $server }: alert
alert-last-seen = { $seen } (last seen { $ago })
alert-match-over = Match over on { $server }: { $map } { $mode }
alert-highlight = { $kind } by { $player } on { $map } ({ $server }): { $score } points
alert-play-of-the-match = Play of the match on { $map } ({ $server }): { $kind } by { $player }, { $score } points
alert-match-score = { $over }, { team-axis } { $axis } : { team-allies } { $allies }
alert-bots = { " " }(+{ $count } { $count ->
    [one] bot
   *[other] bots
})
alert-footer = Muster alert { $key }

# Join check: what a player would meet
join-server-said = { $what } (the server said "{ $text }")
join-free-slot = a slot is free: you can join
join-full = the server is full
join-password = a password is required
join-wrong-protocol = the server runs another protocol
join-banned = you are banned
join-refused = the server refused
join-no-answer = no answer
ask-failed = Could not ask the server: { $why }

## Highlights

highlights-title = Highlights
highlights-description = The best plays of the matches this relay follows: sprees, streaks, long shots, first bloods and clutches, each a clip.
highlights-today = Today's best
highlights-week = This week's best
highlights-latest = Latest
highlights-none = No highlights yet: they are found as followed matches are played.
highlights-all-kinds = All kinds
highlights-on-server = On { $server }
play-of-the-match = Play of the match
player-highlights = Highlights
highlight-watch = Watch the clip
highlight-no-clip = no clip
highlight-score = { $score } points
highlight-by = { $kind } by { $player }
highlight-triple = Triple kill
highlight-quad = Quad kill
highlight-rampage = Rampage
highlight-streak = Killing streak
highlight-long-shot = Long shot
highlight-first-blood = First blood
highlight-clutch = Clutch

## The API's page (/api/)
api-title = The API
api-description = Every operation of this relay's HTTP API: its parameters, an example request and answer, and the OpenAPI description to generate a client from.
api-lead = Every operation of this relay's API, with an example request and answer. The same as OpenAPI 3.1, to generate a client from:
api-needs-token = Needs a token: the operator's, or an owner's session.
api-parameters = Parameters
api-parameter-name = Name
api-parameter-in = In
api-parameter-about = About
api-example-request = Example request
api-example-answer = Example answer
