# Muster po polsku. Każdy komunikat odpowiada angielskiemu (en.ftl), komunikat po komunikacie.

## The header every page shares

nav-pages = Strony
nav-servers = Serwery
nav-tuning = Sieć
nav-demos = Dema
nav-matches = Mecze
nav-highlights = Najlepsze akcje
language = Język
language-go = Zmień
subtitle-servers = Call of Duty: United Offensive 1.51 – serwery
subtitle-tuning = Call of Duty: United Offensive 1.51 – ustawienia sieci
subtitle-watch = Call of Duty: United Offensive 1.51 – mecze
subtitle-moment = Moment z meczu Call of Duty: United Offensive
subtitle-demos = Call of Duty: United Offensive 1.51 – dema
subtitle-matches = Call of Duty: United Offensive 1.51 – mecze
subtitle-highlights = Call of Duty: United Offensive 1.51 – najlepsze akcje
subtitle-api = API serwerów Call of Duty: United Offensive 1.51

## Pieces several pages draw

favorite-remove = Usuń z ulubionych
favorite-add = Dodaj do ulubionych

country-is = Kraj: { $code }

notify-is-playing = { $name } gra teraz

## Tuning

tuning-title = Ustawienia sieci
tuning-intro = Jak oryginalne UO 1.51 zamienia Twoje ustawienia i ustawienia serwera na pakiety i snapshoty. Twoje ustawienia zostają w tej przeglądarce.
tuning-your-settings = Twoje ustawienia
tuning-lan = Serwer LAN
tuning-the-server = Serwer
tuning-snapshot-bytes = bajty snapshotu
tuning-stock-defaults = Ustawienia domyślne
tuning-recommended = Zalecane na tym serwerze
tuning-your-connection = Twoje połączenie z { $addr }
tuning-published = sv_fps { $fps } (podane przez serwer), sv_maxRate { $rate }
tuning-not-published = sv_fps niepodane: przyjęto domyślne 20; sv_maxRate { $rate }
tuning-no-warnings = Brak ostrzeżeń: te ustawienia pasują do tego serwera.
tuning-per-second = { $rate }/s
tuning-every-ms = co { $ms } ms
tuning-client-frames = Klatki klienta
tuning-client-frames-detail = po jednej komendzie gracza
tuning-client-packets = Pakiety klienta
tuning-client-packets-detail = co { $frames ->
    [one] { $frames } klatkę
    [few] { $frames } klatki
   *[other] { $frames } klatek
}, { $commands ->
    [one] po { $commands } komendzie
   *[other] po { $commands } komend
}
tuning-server-frames = Klatki serwera
tuning-server-frames-detail = takty gry i snapshotów
tuning-snapshots = Snapshoty
tuning-rate-delayed = opóźnione przez rate: { $bytes } B zajmuje { $ms } ms przy { $rate } B/s
tuning-snaps-asks = snaps prosi co { $ms } ms

## The watch view

team-axis = Oś
team-allies = Alianci
team-players = Gracze
team-spectators = Widzowie
state-spectating = ogląda
state-not-seen = jeszcze niewidziany
state-dead = nie żyje
state-alive = żyje
state-seen-ago = widziany { $seconds } s temu
scoreboard = Tabela wyników
col-name = Nick
col-score = Punkty
col-deaths = Zgony
col-kills = Zabójstwa
col-ping = Ping
col-state = Stan
col-time = Czas
col-side = Strona
ping-bot = bot

play = Odtwórz
pause = Pauza
rewind-live-now = na żywo
rewind-back-10 = −10 s
rewind-position = Pozycja w ostatnich minutach meczu
rewind-live = Na żywo

the-world = świat
kill-feed = Zabójstwa na żywo
kills = Zabójstwa
replay = powtórka
chat = Czat
server-messages = Komunikaty serwera

demo-unplayable = nie udało się odtworzyć dema: { $why }
demo-decoded = demo { $name } (zdekodowane w { $ms } ms)
demo-decoding = dekodowanie dema…
relay-connecting = łączenie z relayem…
watch-paused = pauza
watch-rewound = przewinięte, { $speed }×
watch-no-delay = bez opóźnienia
watch-delay = opóźnienie { $seconds } s
watch-viewers = oglądający: { $count }
watch-scores = Oś { $axis } : { $allies } Alianci
hub-joining = dołączanie do serwera…
hub-filling = opóźnienie się zapełnia: pierwszy obraz za { $seconds } s
hub-live = na żywo
hub-refused = odmowa: { $reason }
hub-refused-retrying = odmowa: { $reason } (ponowna próba za { $seconds } s)
hub-rejoining = utracono serwer: { $reason } (ponowne dołączenie za { $seconds } s)
hub-closed = zamknięte

demo-position = Pozycja w demie
demo-kills = Zabójstwa w demie
demo-all-kills = Wszystkie zabójstwa
operator-token-prompt = Token operatora relaya
record = Nagrywaj
record-stop = Zatrzymaj nagrywanie
record-stopped = zatrzymane: { $why }

moment-unwritable = nie udało się zapisać momentu
relay-answer-unreadable = odpowiedź relaya była nieczytelna
moment-share = Udostępnij ten moment
moment-from = od −
moment-to = do +
# After a number of seconds, with its space.
seconds-unit = { " " }s
moment-cutting = Wycinanie…
moment-link = Link do momentu
copy = Kopiuj
copied = Skopiowano
open = Otwórz

watch-none-before = Nie wskazano meczu: otwórz serwer na{ " " }
watch-none-list = liście
watch-none-after = { " " }i kliknij Oglądaj.
watch-map-alt = Mapa z góry, każdy gracz to kropka: tabela wyników wymienia tych samych graczy z ich stanem
watch-fit = Dopasuj

map-seen-ago = { " " }({ $seconds } s temu)

## The server browser

detail-hint = Wybierz serwer, aby zobaczyć jego graczy i ustawienia.
watch = Oglądaj
watch-directly = Oglądaj bezpośrednio
watch-directly-title = własną sesją strony, przez mostek
country-none = Brak kraju: { $why }
country-unknown = Kraj nieznany
address-loopback = adres pętli zwrotnej
address-private = adres prywatny
address-link-local = adres lokalny łącza
address-shared = adres współdzielony (CGNAT)
address-reserved = adres zarezerwowany
join = Dołącz
join-before = { " " }otwiera grę launcherem{ " " }
join-after = { " " }(rejestruje linki coduo://); bez niego wklej to do konsoli:
server-password = Hasło serwera
server-password-placeholder = hasło serwera
detail-every-match = Wszystkie mecze i rankingi
detail-players = Gracze ({ $count })
ping-connecting = łączy się
detail-tuning-link = Twoje połączenie tutaj
detail-tuning-after = { " " }(takty i porady dla Twoich ustawień na tym serwerze)
detail-settings = Ustawienia
detail-find-setting = Znajdź ustawienie
detail-find-setting-placeholder = znajdź ustawienie

feed-live = na żywo
feed-connecting = łączenie…
masters = Serwery główne
master-servers = { $count ->
    [one] { $count } serwer
    [few] { $count } serwery
   *[other] { $count } serwerów
}
master-failed-kept = { $why }; jego ostatnia lista ({ $count } serw.) zostaje, nieaktualna
master-polling = odpytywanie…
master-polling-last = odpytywanie… (ostatnia lista: { $count } serw.)
master-own = master tego relaya: zarejestrowane { $registered }, ucichłe { $flatlined }, heartbeaty { $heartbeats }, odrzucone { $dropped }

find-player = Znajdź gracza
find-player-placeholder = część nicku
found-on = { " " }na{ " " }
watch-list = Obserwowani
watch-list-placeholder = nick znajomego
notify-me = Powiadom mnie, gdy dołączą
watch-list-playing-on = { " " }gra na{ " " }
watch-list-offline = { " " }nie gra
watch-list-stop = Przestań obserwować: { $name }
toast-joined = { " " }dołączył(a) do{ " " }
dismiss = Zamknij

waiting-line = { $map } · { $mode } · gracze { $players } · ping { $ping }
waiting-loading = Wczytywanie graczy i ustawień…

ago-now = przed chwilą
ago-minutes = { $count } min temu
ago-hours = { $count } godz. temu
ago-days = { $count ->
    [one] { $count } dzień temu
   *[other] { $count } dni temu
}
history-title = Liczba graczy
history-range = Zakres
history-none = Brak historii.
seen-last-on = { " " }ostatnio widziany na{ " " }

rule-humans-at-least = { $server } osiąga { $count } graczy
rule-server-up = { $server } wraca
rule-server-down = { $server } pada
rule-slot-free = na { $server } zwalnia się miejsce
rule-name-seen = pojawia się { $name }
rule-match-end = kończy się mecz na { $server }
rule-highlight-of = najlepsza akcja gracza { $name }
rule-highlight-on = najlepsza akcja na { $server }
rule-play-of-the-match = akcja każdego meczu na { $server }
by-this-browser = ta przeglądarka
by-webhook-short = webhook
alert-no-subscription = Ta przeglądarka nie mogła się zasubskrybować: { $why }
alert-set-done = Gotowe: dostaniesz powiadomienie, gdy to się stanie.
alert-forgotten = Wszystko, co relay przechowywał o Twoich powiadomieniach, zostało usunięte.
join-when-free = Dołącz, gdy zwolni się miejsce
join-when-free-after = { " " }da Ci znać (nawet przy zamkniętej stronie), gdy tylko się zwolni.
alert-tell-me = Powiadom mnie, gdy…
alert-when = Kiedy
when-slot-free = zwolni się miejsce
when-humans-at-least = liczba graczy osiągnie
when-server-up = serwer wróci
when-server-down = serwer padnie
alert-players = Gracze
alert-by-between = { " " }przez{ " " }
alert-by = Przez
by-push = powiadomienia tej przeglądarki
by-ntfy = ntfy (Twój telefon)
by-discord = webhook Discorda
by-webhook = webhook
alert-where = Dokąd
alert-set = Ustaw powiadomienie
alert-yours = Twoje powiadomienia (zapisane w tej przeglądarce)
alert-line = { $rule } – przez { $by }
alert-fired = { " " }({ $count ->
    [one] zadziałało raz
   *[other] zadziałało { $count } razy
})
delete = Usuń
alert-forget = Usuń z relaya wszystkie moje powiadomienia

owner-asking = Pytanie serwera…
owner-proven = Potwierdzone: możesz opisać ten serwer.
owner-says = Od właściciela
owner-yours = To Twój serwer?
owner-prove-before = Udowodnij to hasłem rcon serwera: relay wyśle je raz, w jednym{ " " }
owner-prove-after = , i nic nie zachowa.
rcon-password = hasło rcon
owner-prove = Potwierdź
owner-saved = Zapisano.
owner-given-up = Zrezygnowano: serwer nie ma tu teraz właściciela.
owner-description = Opis
owner-links = Linki, po jednym w wierszu: najpierw tytuł, potem adres https
owner-banner-colours = Kolory bannera
owner-background = tło
owner-text = tekst
owner-accent = akcent
owner-discord = Webhook Discorda dla startu, awarii, pełnego serwera i wyników meczów
owner-discord-set = ustawiony (zostaw puste, aby zachować)
owner-follow = { " " }Śledź mecze tego serwera do statystyk
owner-play-of-the-match = { " " }Także akcja każdego śledzonego meczu (karta z kadrem i klipem)
save = Zapisz
owner-give-up = Zrezygnuj z własności

join-check = Sprawdź dołączenie
join-checking = Sprawdzanie…
refresh-now = Odśwież teraz
refresh-asking = Pytanie…
refresh-answered = odpowiedział w { $ms } ms przez mostek: { $map }, gracze { $clients }/{ $max }

tab-all = Wszystkie serwery
tab-favorites = Ulubione
tab-recent = Ostatnio oglądane
progress = Postęp odświeżania
progress-refreshed = odświeżono: odpowiedziało { $answered }/{ $total }
progress-refreshing = odświeżanie: odpowiedziało { $answered }/{ $total }
col-server = Serwer
col-map = Mapa
col-mode = Tryb
col-mod = Mod
col-players = Gracze
col-matches = Mecze
col-flags = Cechy
col-seen = Widziany
col-favorite = Ulubiony

filters = Filtry
filters-set = Filtry ({ $count })
tri-any = obojętnie
tri-yes = tak
tri-no = nie
country-none-option = brak (prywatny lub nieznany) ({ $count })
search = Szukaj
search-placeholder = serwer, mapa lub gracz
filter-all = wszystkie
filter-country = Kraj/region
filter-max-ping = Maks. ping
filter-empty = puste
filter-full = pełne
filter-answering = tylko odpowiadające
filter-long-down = długo nieczynne
filter-password = Hasło
filter-pure = Pure
filter-dedicated = Dedykowany
filter-punkbuster = PunkBuster
filter-friendly-fire = Friendly fire
filter-killcam = Killcam
filter-jeeps = Jeepy
filter-tanks = Czołgi
filter-reset = Wyczyść

list-summary = Serwery: { $total }, odpowiada { $answering }, pokazano { $shown }

matches-today-title = Mecze śledzone w ostatnich 24 godzinach
flag-password = Wymagane hasło
flag-password-short = PW
age-title = Czas od ostatniej odpowiedzi serwera
ping-down = nie działa
ping-bad-reply = błędna odpowiedź
ping-stale = nieaktualny
ping-ms = { $ms }
not-known = —
nothing = { "" }
age-seconds = { $seconds } s
age-minutes = { $minutes } min

sources = { $masters } · { $servers ->
    [one] { $servers } serwer
    [few] { $servers } serwery
   *[other] { $servers } serwerów
}
masters-none = brak mastera
master-answering = master odpowiada
master-not-answering = master nie odpowiada
masters-answering = odpowiada { $answering } z { $count } masterów
master-error-resolve = jego nazwy nie da się rozwiązać
master-error-silent = nie odpowiedział
master-error-unreachable = jest nieosiągalny
master-error-unreadable = odpowiedział czymś nieczytelnym

matches-none-here = Nie śledzono tu jeszcze żadnego meczu.
matches-recent = Ostatnie mecze
matches-week-best = Najlepsi tygodnia w { $mode }
match-followed = w trakcie śledzenia
match-finished = zakończony
match-ended-map-change = zakończony zmianą mapy
match-ended-map-restart = zakończony restartem mapy
match-unfinished = niedokończony (śledzony częściowo)
match-result-teams = Oś { $axis } – { $allies } Alianci
match-result-winner = wygrał(a) { $name }
played-hours = { $hours } godz. { $minutes } min
played-clock = { $clock }

wulfram-servers = Serwery Wulfram II
col-address = Adres
col-status = Stan
col-rtt = RTT
wulfram-online = dostępny
wulfram-unreachable = nieosiągalny
wulfram-checking = sprawdzanie…

share-link = Link
share-signature = Sygnatura (350×20)
share-widget = Widżet
share-summary = Udostępnij: link, banner, widżet
share-banner-alt = Banner tego serwera

## The match and player pages

match-missing = Nie ma takiego meczu
match-demo = demo
match-live = na żywo: odświeżane co 5 s
match-rounds = Rundy
match-score-chart = Wynik w trakcie meczu
match-heatmap = Zabójstwa (czerwone) i zgony (niebieskie), widok z góry
match-who-killed-whom = Kto kogo zabił
match-weapons = Bronie
col-weapon = Broń
col-suicides = Samobójstwa
col-team-kills = Zabicia drużynowe
col-round = Runda
col-won-by = Wygrała
col-at = Czas
feed-filter = tylko on
feed-filter-title = tylko zabójstwa i zgony tego gracza na liście
matrix-corner = zabójca ↓ ofiara →
kill-moment-title = to zabójstwo w demie, od 3 s wcześniej
feed-only-before = Tylko zabójstwa i zgony gracza{ " " }
feed-only-after = { " " }·{ " " }
feed-show-all = pokaż wszystkie
feed-every-kill = Wszystkie zabójstwa po kolei
side-free = brak
side-axis = Oś
side-allies = Alianci
side-spectator = widz
kill-kind-kill = zabójstwo
kill-kind-team = zabicie drużynowe
kill-kind-suicide = samobójstwo
kill-kind-world = świat
date-time-utc = { $day }.{ $month }.{ $year }, { $hour }:{ $minute } UTC

player-missing = Żaden śledzony mecz nie zna tego nicku
player-rating-chart = Ocena w { $mode } po każdym ocenionym meczu; rankingi liczą według dolnej linii
player-last-seen = Ostatnio widziany { $when } na { $server }
col-kd = K/D
col-time-played = Czas gry
col-won = Wygrane
col-lost = Przegrane
player-ratings = Oceny
col-rating = Ocena
col-ranked-as = W rankingu jako
col-rated-matches = Ocenione mecze
player-unrated = Ocena po zakończonym meczu.
player-maps = Mapy
col-when = Kiedy
col-result = Wynik
col-place = Miejsce

## The demo player

demo-file-unreadable = nie udało się odczytać pliku: { $why }
demos-intro-open = Otwórz oryginalne demo{ " " }
demos-intro-from = { " " }(z folderu{ " " }
demos-intro-rest = { " " }klienta lub z tego relaya) albo upuść je na stronę. Jest dekodowane tutaj, na stronie.
demos-open-file = Otwórz plik dema{ " " }
demos-recorded = Nagrane przez ten relay
demos-none = Jeszcze nic.
download = pobierz

## The admin console

admin-password-first = najpierw wpisz hasło rcon serwera
admin-title = Konsola administratora
admin-ready = Komendy trafiają do serwera po jednej, tak jak pozwala jego rcon.
admin-connecting = Łączenie z relayem…
admin-map = mapa
admin-message = wiadomość
admin-say = say
admin-players-caption = { $count } na { $map }
admin-kick = Wyrzuć
col-slot = Slot
admin-closed = relay zamknął konsolę
admin-closed-reload = Relay zamknął konsolę; odśwież stronę, aby połączyć się ponownie.
admin-output-cut = (wynik ucięty: dłuższy, niż relay przechowuje)
admin-bad-password = Złe hasło rcon.
admin-no-password = Serwer nie ma ustawionego hasła rcon: rcon jest tam wyłączony.

## Errors

relay-silent = relay nie odpowiedział
relay-not-a-response = to nie jest odpowiedź

alert-no-push-key = relay nie udostępnia klucza push
alert-unreadable-subscription = nieczytelna subskrypcja

worker-not-started = worker sesji nie wystartował: { $why }
worker-script-missing = jego skrypt się nie wczytał

worker-failed = worker sesji przestał działać: { $why }

ms = { $ms } ms

kilobytes = { $kb } KB

## Titles of the pages the page itself titles

title-admin = Muster: konsola administratora
title-tuning = Muster: ustawienia sieci
title-watch = Muster: oglądaj mecz
title-demos = Muster: dema CoD:UO

## The relay's first screen and plain list

title-servers = Muster: przeglądarka serwerów CoD:UO
description-servers = Każdy działający serwer Call of Duty: United Offensive 1.51 z mapą, trybem, graczami i pingiem: znajdź znajomych, dołącz i oglądaj mecze na żywo w przeglądarce.
plain-every = Wszystkie serwery jako zwykła lista
plain-every-count = Wszystkie serwery ({ $count }) jako zwykła lista
plain-title = Muster: serwery CoD:UO, strona { $page } z { $pages }
plain-summary = { $shown } z { $total } serwerów · strona { $page } z { $pages }
plain-previous = ← Poprzednia
plain-next = Następna →
card-players = gracze: { $players }

matches-on = Mecze na { $server }
period-week = Ten tydzień
period-month = Ten miesiąc
period-all = Od początku
board-month = Najlepsi miesiąca w { $mode }
board-all = Najlepsi wszech czasów w { $mode }
matches-intro = Każdy mecz, który śledził ten relay, od najnowszego. Mecz jest śledzony, gdy ktoś go ogląda, i zawsze na serwerach śledzonych przez operatora.
matches-none = Nie śledzono jeszcze żadnego meczu.
matches-description = Ostatnie mecze śledzone przez ten relay: { $count }
board-empty = Nikt z oceną nie rozegrał jeszcze { $count } meczów w tym okresie.
match-title = { $map } na { $server }: { $result }
match-description = { $mode } { $when }, zabójstwa: { $kills }, gracze: { $names }; { $ended }
player-rated = ; ocena { $rating } ± { $spread } w { $mode }
player-description = Zabójstwa: { $kills }, zgony: { $deaths }, mecze: { $matches } (wygrane: { $won })
player-rating-chart-any = Ocena po każdym ocenionym meczu; rankingi liczą według dolnej linii

## Moments

moment-headline-none = { $seconds } s na { $map }
moment-headline-kill = { $attacker } zabił(a) { $victim } ({ $weapon })
moment-headline-kills = { $count ->
    [one] { $count } zabójstwo
    [few] { $count } zabójstwa
   *[other] { $count } zabójstw
} w { $seconds } s na { $map }
seconds = { $seconds } s
moment-still = Gdzie wszyscy stali na { $map }
moment-kill = { $attacker } zabił(a) { $victim } ({ $weapon })
moment-download = Pobierz klip (.dm_3)
moment-whole-match = Cały mecz
moment-description = { $seconds }-sekundowy moment na { $map } na serwerze { $server }, do odtworzenia w przeglądarce lub w grze.

## Added with the no-English check

admin-close = Zamknij konsolę administratora
admin-tab = Admin
admin-not-connected = konsola nie jest połączona
admin-command = komenda konsoli
admin-not-opened = nie udało się otworzyć konsoli: { $why }
sparkline-title = Gracze na wszystkich serwerach, ostatnie 24 h
countries-credit = Kraje:{ " " }
back-demos = ← Dema
back-servers = ← Serwery
not-listed = nie ma tu takiego serwera
match-records-unavailable = zapisy meczów są niedostępne
moment-missing = nie ma takiego momentu
moment-expired = nie ma takiego momentu (albo wygasł)
moments-unavailable = momenty są niedostępne
title-suffix = { " " }· Muster

## The tuning guide's advice and profiles

advice-snaps_above_server_rate = snaps { $snaps } prosi o snapshot co { $asked } ms, ale serwer { $hz } Hz (klatki po { $frame } ms) może wysłać go najwyżej co { $every } ms (około { $rate }/s). { $then }
advice-no-extra-snapshots = Proszenie o więcej nie da tu dodatkowych snapshotów.
advice-align-snaps = Ustaw snaps równe sv_fps serwera (najwyżej 30), żeby odstępy się zgrały.
advice-rate_delays_large_snapshots = Przy efektywnym rate { $rate } bajtów/s naliczony snapshot { $bytes } bajtów zajmuje { $takes } ms, dłużej niż { $asked } ms, o które prosi snaps: snapshoty przychodzą co { $every } ms (około { $per_second }/s). Opóźnienia unikają tylko snapshoty do około { $fits } bajtów; podnieś rate (albo sv_maxRate serwera), jeśli łącze to uniesie, albo obniż snaps.
advice-cl_maxpackets_unaligned = cl_maxpackets { $maxpackets } ({ $threshold } ms) jest osiągane dopiero w klatce { $frame } po { $frame_ms } ms przy com_maxfps { $maxfps }: około { $per_second } pakietów/s, a nie { $maxpackets }. cl_maxpackets { $aligned } daje ten sam rytm; stała zgrana para, np. 125/62 albo 100/100, jest bardziej przewidywalna.
advice-usercmd_budget_exceeded = (1 + cl_packetdup { $packetdup }) × { $frames } klatek na pakiet = { $commands } komend gracza, więcej niż 32, które mieści pakiet: klient wypisuje MAX_PACKET_USERCMDS i zostawia tylko 32 najnowsze. Zwiększ częstotliwość pakietów, obniż com_maxfps albo zmniejsz cl_packetdup.
advice-usercmd_budget_near_limit = { $commands } komend gracza na pakiet to blisko limitu 32; trzymaj się wyraźnie poniżej.
advice-packetdup_high = cl_packetdup { $packetdup } jest na stwierdzoną utratę pakietów; 1 to wyważona wartość domyślna, a 2 wystarcza przy widocznych stratach. Więcej duplikatów nie obniża pingu ani drgań snapshotów.
advice-packetdup_zero = cl_packetdup 0 wysyła każdą komendę gracza raz: w porządku na czystym łączu o małej przepustowości, ale zgubiony pakiet gubi swoje komendy.
advice-sv_fps_above_snapshot_ceiling = sv_fps { $fps } zmienia rytm aktualizacji gry, ale klienci nie mogą prosić o więcej niż 30 snapshotów/s, a terminy zaokrąglają się w górę do pełnych klatek { $frame } ms.
advice-time_nudge_behind = cl_timeNudge { $nudge } ms przesuwa obraz za oś czasu serwera; nie zmienia pakietów, snapshotów ani pingu. 0 to właściwa wartość domyślna.
advice-time_nudge_ahead = cl_timeNudge { $nudge } ms przesuwa obraz przed oś czasu serwera; nie zmienia pakietów, snapshotów ani pingu. 0 to właściwa wartość domyślna.
advice-snaps_below_server_rate = snaps { $snaps } prosi o mniej snapshotów, niż serwer mógłby wysłać; podnieś je do sv_fps { $fps }, jeśli pozwala przepustowość.
profile-stock-baseline = Ustawienia oryginalne
profile-stock-baseline-tradeoff = Oszczędne łącze; już zgrane z oryginalnym serwerem 20 Hz.
profile-balanced-broadband = Zrównoważony szerokopasmowy
profile-balanced-broadband-tradeoff = Około 62,5 pakietu wychodzącego/s z zapasem odbioru na najgorszy naliczony pakiet przy 30 snapshotach/s.
profile-minimum-batching = Najmniejsze paczki komend
profile-minimum-batching-tradeoff = Jedna okazja do wysłania na każdą klatkę klienta 10 ms; większy narzut pakietów i więcej pracy serwera.
profile-constrained = Słabe łącze
profile-constrained-tradeoff = Mniej datagramów i mniejszy przydział od serwera do klienta; duże snapshoty mogą być opóźniane przez rate.

## Banners and the widget

banner-online = działa
banner-asking = pytanie
banner-players = gracze

# Alerts as the relay sends them (Discord, ntfy, push, webhook text)
alert-a-server = serwer
alert-humans = { $server } ma { $count } { $count ->
    [one] gracza
   *[other] graczy
} (alert przy { $at })
alert-server-up = { $server } znów działa
alert-server-down = { $server } przestał odpowiadać
alert-slot-free = { $server } ma wolne miejsce ({ $players }/{ $max })
alert-name-on = { $name } gra na { $server }
alert-name-left = { $name } opuścił serwer
alert-other = { $server }: alert
alert-last-seen = { $seen } (ostatnio widziany { $ago })
alert-match-over = Koniec meczu na { $server }: { $map } { $mode }
alert-highlight = { $kind }: { $player } na { $map } ({ $server }), { $score } pkt
alert-play-of-the-match = Akcja meczu na { $map } ({ $server }): { $kind }, { $player }, { $score } pkt
alert-match-score = { $over }, { team-axis } { $axis } : { team-allies } { $allies }
alert-bots = { " " }(+{ $count } { $count ->
    [one] bot
    [few] boty
   *[other] botów
})
alert-footer = Alert Muster { $key }

# Join check: what a player would meet
join-server-said = { $what } (serwer odpowiedział „{ $text }”)
join-free-slot = jest wolne miejsce: możesz dołączyć
join-full = serwer jest pełny
join-password = wymagane hasło
join-wrong-protocol = serwer używa innego protokołu
join-banned = masz bana
join-refused = serwer odmówił
join-no-answer = brak odpowiedzi
ask-failed = Nie udało się zapytać serwera: { $why }

## Highlights

highlights-title = Najlepsze akcje
highlights-description = Najlepsze akcje meczów śledzonych przez ten przekaźnik: serie, passy, strzały z daleka, pierwsza krew i clutche, każda jako klip.
highlights-today = Najlepsze dzisiaj
highlights-week = Najlepsze w tym tygodniu
highlights-latest = Najnowsze
highlights-none = Jeszcze brak najlepszych akcji: powstają w trakcie śledzonych meczów.
highlights-all-kinds = Wszystkie rodzaje
highlights-on-server = Na { $server }
play-of-the-match = Akcja meczu
player-highlights = Najlepsze akcje
highlight-watch = Obejrzyj klip
highlight-no-clip = brak klipu
highlight-score = { $score } pkt
highlight-by = { $kind }: { $player }
highlight-triple = Potrójne zabójstwo
highlight-quad = Poczwórne zabójstwo
highlight-rampage = Szał
highlight-streak = Seria zabójstw
highlight-long-shot = Strzał z daleka
highlight-first-blood = Pierwsza krew
highlight-clutch = Clutch

## The API's page (/api/)
api-title = API
api-description = Każda operacja HTTP API tego przekaźnika: jej parametry, przykładowe zapytanie i odpowiedź oraz opis OpenAPI, z którego można wygenerować klienta.
api-lead = Każda operacja API tego przekaźnika, z przykładowym zapytaniem i odpowiedzią. To samo jako OpenAPI 3.1, do wygenerowania klienta:
api-needs-token = Wymaga tokenu: operatora lub sesji właściciela.
api-parameters = Parametry
api-parameter-name = Nazwa
api-parameter-in = Gdzie
api-parameter-about = Opis
api-example-request = Przykładowe zapytanie
api-example-answer = Przykładowa odpowiedź
