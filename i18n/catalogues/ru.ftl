# Muster по-русски. Каждое сообщение следует английскому (en.ftl), сообщение за сообщением.

## The header every page shares

nav-pages = Разделы
nav-servers = Серверы
nav-tuning = Сеть
nav-demos = Демо
nav-matches = Матчи
nav-highlights = Лучшее
language = Язык
language-go = Сменить
subtitle-servers = Call of Duty: United Offensive 1.51 — серверы
subtitle-tuning = Call of Duty: United Offensive 1.51 — настройка сети
subtitle-watch = Call of Duty: United Offensive 1.51 — матчи
subtitle-moment = Момент матча Call of Duty: United Offensive
subtitle-demos = Call of Duty: United Offensive 1.51 — демо
subtitle-matches = Call of Duty: United Offensive 1.51 — матчи
subtitle-highlights = Call of Duty: United Offensive 1.51 — лучшие моменты
subtitle-api = API серверов Call of Duty: United Offensive 1.51

## Pieces several pages draw

favorite-remove = Убрать из избранного
favorite-add = Добавить в избранное

country-is = Страна: { $code }

notify-is-playing = { $name } сейчас играет

## Tuning

tuning-title = Настройка сети
tuning-intro = Как оригинальная UO 1.51 превращает ваши настройки и настройки сервера в пакеты и снапшоты. Ваши настройки хранятся в этом браузере.
tuning-your-settings = Ваши настройки
tuning-lan = Сервер в LAN
tuning-the-server = Сервер
tuning-snapshot-bytes = байт в снапшоте
tuning-stock-defaults = Стандартные значения
tuning-recommended = Рекомендуется на этом сервере
tuning-your-connection = Ваше соединение с { $addr }
tuning-published = sv_fps { $fps } (сообщён сервером), sv_maxRate { $rate }
tuning-not-published = sv_fps не сообщён: принято стандартное 20; sv_maxRate { $rate }
tuning-no-warnings = Предупреждений нет: эти настройки подходят этому серверу.
tuning-per-second = { $rate }/с
tuning-every-ms = каждые { $ms } мс
tuning-client-frames = Кадры клиента
tuning-client-frames-detail = по одной команде игрока
tuning-client-packets = Пакеты клиента
tuning-client-packets-detail = через { $frames ->
    [one] { $frames } кадр
    [few] { $frames } кадра
   *[other] { $frames } кадров
}, { $commands ->
    [one] по { $commands } команде
   *[other] по { $commands } команды
}
tuning-server-frames = Кадры сервера
tuning-server-frames-detail = такты игры и снапшотов
tuning-snapshots = Снапшоты
tuning-rate-delayed = задержано rate: { $bytes } Б занимают { $ms } мс при { $rate } Б/с
tuning-snaps-asks = snaps запрашивает каждые { $ms } мс

## The watch view

team-axis = Ось
team-allies = Союзники
team-players = Игроки
team-spectators = Зрители
state-spectating = наблюдает
state-not-seen = ещё не замечен
state-dead = убит
state-alive = жив
state-seen-ago = замечен { $seconds } с назад
scoreboard = Таблица счёта
col-name = Ник
col-score = Очки
col-deaths = Смерти
col-kills = Убийства
col-ping = Пинг
col-state = Состояние
col-time = Время
col-side = Сторона
ping-bot = бот

play = Играть
pause = Пауза
rewind-live-now = в эфире
rewind-back-10 = −10 с
rewind-position = Позиция в последних минутах матча
rewind-live = Эфир

the-world = мир
kill-feed = Лента убийств
kills = Убийства
replay = повтор
chat = Чат
server-messages = Сообщения сервера

demo-unplayable = демо не удалось воспроизвести: { $why }
demo-decoded = демо { $name } (декодировано за { $ms } мс)
demo-decoding = декодирование демо…
relay-connecting = подключение к релею…
watch-paused = пауза
watch-rewound = перемотано, { $speed }×
watch-no-delay = без задержки
watch-delay = задержка { $seconds } с
watch-viewers = зрителей: { $count }
watch-scores = Ось { $axis } : { $allies } Союзники
hub-joining = вход на сервер…
hub-filling = задержка заполняется: первая картинка через { $seconds } с
hub-live = в эфире
hub-refused = отказ: { $reason }
hub-refused-retrying = отказ: { $reason } (повтор через { $seconds } с)
hub-rejoining = связь с сервером потеряна: { $reason } (повторный вход через { $seconds } с)
hub-closed = закрыто

demo-position = Позиция в демо
demo-kills = Убийства в демо
demo-all-kills = Все убийства
operator-token-prompt = Токен оператора релея
record = Записать
record-stop = Остановить запись
record-stopped = остановлено: { $why }

moment-unwritable = момент не удалось записать
relay-answer-unreadable = ответ релея не читается
moment-share = Поделиться этим моментом
moment-from = с −
moment-to = до +
# After a number of seconds, with its space.
seconds-unit = { " " }с
moment-cutting = Вырезаем…
moment-link = Ссылка на момент
copy = Копировать
copied = Скопировано
open = Открыть

watch-none-before = Матч не указан: откройте сервер в{ " " }
watch-none-list = списке
watch-none-after = { " " }и нажмите «Смотреть».
watch-map-alt = Карта сверху, каждый игрок — точка: в таблице счёта те же игроки с их состоянием
watch-fit = Вписать

map-seen-ago = { " " }({ $seconds } с назад)

## The server browser

detail-hint = Выберите сервер, чтобы увидеть его игроков и настройки.
watch = Смотреть
watch-directly = Смотреть напрямую
watch-directly-title = собственной сессией страницы, через мост
country-none = Страна не определена: { $why }
country-unknown = Страна неизвестна
address-loopback = адрес обратной петли
address-private = частный адрес
address-link-local = локальный адрес канала
address-shared = общий адрес (CGNAT)
address-reserved = зарезервированный адрес
join = Войти
join-before = { " " }откроет игру через лаунчер{ " " }
join-after = { " " }(он регистрирует ссылки coduo://); без него вставьте это в консоль:
server-password = Пароль сервера
server-password-placeholder = пароль сервера
detail-every-match = Все матчи и рейтинги
detail-players = Игроки ({ $count })
ping-connecting = подключается
detail-tuning-link = Ваше соединение здесь
detail-tuning-after = { " " }(такты и советы по вашим настройкам на этом сервере)
detail-settings = Настройки
detail-find-setting = Найти настройку
detail-find-setting-placeholder = найти настройку

feed-live = в эфире
feed-connecting = подключение…
masters = Мастер-серверы
master-servers = { $count ->
    [one] { $count } сервер
    [few] { $count } сервера
   *[other] { $count } серверов
}
master-failed-kept = { $why }; его последний список (серверов: { $count }) сохранён, устарел
master-polling = опрос…
master-polling-last = опрос… (последний список: серверов: { $count })
master-own = мастер этого релея: зарегистрировано { $registered }, замолчало { $flatlined }, хартбитов { $heartbeats }, отброшено { $dropped }

find-player = Найти игрока
find-player-placeholder = часть ника
found-on = { " " }на{ " " }
watch-list = Список наблюдения
watch-list-placeholder = ник друга
notify-me = Сообщить, когда они зайдут
watch-list-playing-on = { " " }играет на{ " " }
watch-list-offline = { " " }не в сети
watch-list-stop = Перестать следить за { $name }
toast-joined = { " " }зашёл на{ " " }
dismiss = Закрыть

waiting-line = { $map } · { $mode } · игроки { $players } · пинг { $ping }
waiting-loading = Загружаем игроков и настройки…

ago-now = только что
ago-minutes = { $count } мин назад
ago-hours = { $count } ч назад
ago-days = { $count ->
    [one] { $count } день назад
    [few] { $count } дня назад
   *[other] { $count } дней назад
}
history-title = Онлайн
history-range = Период
history-none = Истории пока нет.
seen-last-on = { " " }последний раз замечен на{ " " }

rule-humans-at-least = на { $server } набирается { $count } игроков
rule-server-up = { $server } снова работает
rule-server-down = { $server } падает
rule-slot-free = на { $server } освобождается место
rule-name-seen = появляется { $name }
rule-match-end = заканчивается матч на { $server }
rule-highlight-of = лучший момент игрока { $name }
rule-highlight-on = лучший момент на { $server }
rule-play-of-the-match = момент каждого матча на { $server }
by-this-browser = этот браузер
by-webhook-short = вебхук
alert-no-subscription = Этот браузер не смог подписаться: { $why }
alert-set-done = Готово: вы получите уведомление, когда это случится.
alert-forgotten = Всё, что релей хранил о ваших уведомлениях, удалено.
join-when-free = Войти, когда освободится место
join-when-free-after = { " " }сообщит вам (даже с закрытой страницей), как только оно освободится.
alert-tell-me = Сообщить мне, когда…
alert-when = Когда
when-slot-free = освободится место
when-humans-at-least = игроков станет
when-server-up = сервер заработает
when-server-down = сервер упадёт
alert-players = Игроки
alert-by-between = { " " }через{ " " }
alert-by = Через
by-push = уведомления этого браузера
by-ntfy = ntfy (ваш телефон)
by-discord = вебхук Discord
by-webhook = вебхук
alert-where = Куда
alert-set = Создать уведомление
alert-yours = Ваши уведомления (хранятся в этом браузере)
alert-line = { $rule } — через { $by }
alert-fired = { " " }(сработало { $count ->
    [one] { $count } раз
    [few] { $count } раза
   *[other] { $count } раз
})
delete = Удалить
alert-forget = Удалить с релея все мои уведомления

owner-asking = Спрашиваем сервер…
owner-proven = Подтверждено: вы можете описать этот сервер.
owner-says = От владельца
owner-yours = Это ваш сервер?
owner-prove-before = Докажите это rcon-паролем сервера: релей отправит его один раз, в одной команде{ " " }
owner-prove-after = , и ничего не сохранит.
rcon-password = rcon-пароль
owner-prove = Подтвердить
owner-saved = Сохранено.
owner-given-up = Отказ принят: у сервера здесь больше нет владельца.
owner-description = Описание
owner-links = Ссылки, по одной в строке: сначала название, затем адрес https
owner-banner-colours = Цвета баннера
owner-background = фон
owner-text = текст
owner-accent = акцент
owner-discord = Вебхук Discord для запуска, падения, заполнения и итогов матчей этого сервера
owner-discord-set = задан (оставьте пустым, чтобы сохранить)
owner-follow = { " " }Следить за матчами этого сервера для статистики
owner-play-of-the-match = { " " }Также момент каждого отслеживаемого матча (карточка с кадром и клипом)
save = Сохранить
owner-give-up = Отказаться от владения

join-check = Проверить вход
join-checking = Проверяем…
refresh-now = Обновить сейчас
refresh-asking = Спрашиваем…
refresh-answered = ответил за { $ms } мс через мост: { $map }, игроки { $clients }/{ $max }

tab-all = Все серверы
tab-favorites = Избранное
tab-recent = Недавние
progress = Ход обновления
progress-refreshed = обновлено: ответили { $answered }/{ $total }
progress-refreshing = обновление: ответили { $answered }/{ $total }
col-server = Сервер
col-map = Карта
col-mode = Режим
col-mod = Мод
col-players = Игроки
col-matches = Матчи
col-flags = Признаки
col-seen = Отвечал
col-favorite = Избранное

filters = Фильтры
filters-set = Фильтры ({ $count })
tri-any = любой
tri-yes = да
tri-no = нет
country-none-option = нет (частный или неизвестен) ({ $count })
search = Поиск
search-placeholder = сервер, карта или игрок
filter-all = все
filter-country = Страна/регион
filter-max-ping = Макс. пинг
filter-empty = пустые
filter-full = полные
filter-answering = только отвечающие
filter-long-down = давно недоступные
filter-password = Пароль
filter-pure = Pure
filter-dedicated = Выделенный
filter-punkbuster = PunkBuster
filter-friendly-fire = Огонь по своим
filter-killcam = Killcam
filter-jeeps = Джипы
filter-tanks = Танки
filter-reset = Сбросить

list-summary = Серверов: { $total }, отвечают: { $answering }, показано: { $shown }

matches-today-title = Матчи, отслеженные за последние 24 часа
flag-password = Нужен пароль
flag-password-short = PW
age-title = Время с последнего ответа сервера
ping-down = недоступен
ping-bad-reply = плохой ответ
ping-stale = устарел
ping-ms = { $ms }
not-known = —
nothing = { "" }
age-seconds = { $seconds } с
age-minutes = { $minutes } мин

sources = { $masters } · { $servers ->
    [one] { $servers } сервер
    [few] { $servers } сервера
   *[other] { $servers } серверов
}
masters-none = нет мастера
master-answering = мастер отвечает
master-not-answering = мастер не отвечает
masters-answering = отвечают { $answering } из { $count } мастеров
master-error-resolve = его имя не разрешается
master-error-silent = не ответил
master-error-unreachable = недоступен
master-error-unreadable = ответил чем-то нечитаемым

matches-none-here = Здесь ещё не отслежено ни одного матча.
matches-recent = Последние матчи
matches-week-best = Лучшие недели в { $mode }
match-followed = отслеживается
match-finished = завершён
match-ended-map-change = завершён сменой карты
match-ended-map-restart = завершён перезапуском карты
match-unfinished = не завершён (отслежен частично)
match-result-teams = Ось { $axis } – { $allies } Союзники
match-result-winner = победил { $name }
played-hours = { $hours } ч { $minutes } мин
played-clock = { $clock }

wulfram-servers = Серверы Wulfram II
col-address = Адрес
col-status = Состояние
col-rtt = RTT
wulfram-online = в сети
wulfram-unreachable = недоступен
wulfram-checking = проверяем…

share-link = Ссылка
share-signature = Подпись (350×20)
share-widget = Виджет
share-summary = Поделиться: ссылка, баннер, виджет
share-banner-alt = Баннер этого сервера

## The match and player pages

match-missing = Такого матча нет
match-demo = демо
match-live = в эфире: обновляется каждые 5 с
match-rounds = Раунды
match-score-chart = Счёт по ходу матча
match-heatmap = Убийства (красные) и смерти (синие), вид сверху
match-who-killed-whom = Кто кого убил
match-weapons = Оружие
col-weapon = Оружие
col-suicides = Самоубийства
col-team-kills = Убийства своих
col-round = Раунд
col-won-by = Победила
col-at = Время
feed-filter = лента
feed-filter-title = в ленте только убийства и смерти этого игрока
matrix-corner = убийца ↓ жертва →
kill-moment-title = это убийство в демо, с 3 с до него
feed-only-before = Только убийства и смерти игрока{ " " }
feed-only-after = { " " }·{ " " }
feed-show-all = показать все
feed-every-kill = Все убийства по порядку
side-free = без стороны
side-axis = Ось
side-allies = Союзники
side-spectator = зритель
kill-kind-kill = убийство
kill-kind-team = убийство своего
kill-kind-suicide = самоубийство
kill-kind-world = мир
date-time-utc = { $day }.{ $month }.{ $year }, { $hour }:{ $minute } UTC

player-missing = Ни в одном отслеженном матче нет такого ника
player-rating-chart = Рейтинг в { $mode } после каждого учтённого матча; таблицы ранжируют по нижней линии
player-last-seen = Последний раз замечен { $when } на { $server }
col-kd = У/С
col-time-played = Время в игре
col-won = Победы
col-lost = Поражения
player-ratings = Рейтинги
col-rating = Рейтинг
col-ranked-as = В таблицах как
col-rated-matches = Учтённые матчи
player-unrated = Рейтинг появится после завершённого матча.
player-maps = Карты
col-when = Когда
col-result = Итог
col-place = Место

## The demo player

demo-file-unreadable = файл не удалось прочитать: { $why }
demos-intro-open = Откройте оригинальное демо{ " " }
demos-intro-from = { " " }(из папки{ " " }
demos-intro-rest = { " " }клиента или с этого релея) или перетащите его на страницу. Оно декодируется здесь, на странице.
demos-open-file = Открыть файл демо{ " " }
demos-recorded = Записано этим релеем
demos-none = Пока ничего.
download = скачать

## The admin console

admin-password-first = сначала введите rcon-пароль сервера
admin-title = Консоль администратора
admin-ready = Команды уходят на сервер по одной, как позволяет его rcon.
admin-connecting = Подключение к релею…
admin-map = карта
admin-message = сообщение
admin-say = say
admin-players-caption = { $count } на { $map }
admin-kick = Кикнуть
col-slot = Слот
admin-closed = релей закрыл консоль
admin-closed-reload = Релей закрыл консоль; перезагрузите страницу, чтобы подключиться снова.
admin-output-cut = (вывод обрезан: длиннее, чем хранит релей)
admin-bad-password = Неверный rcon-пароль.
admin-no-password = На сервере не задан rcon-пароль: rcon там выключен.

## Errors

relay-silent = релей не ответил
relay-not-a-response = это не ответ

alert-no-push-key = релей не предлагает push-ключ
alert-unreadable-subscription = нечитаемая подписка

worker-not-started = воркер сессии не запустился: { $why }
worker-script-missing = его скрипт не загрузился

worker-failed = воркер сессии упал: { $why }

ms = { $ms } мс

kilobytes = { $kb } КБ

## Titles of the pages the page itself titles

title-admin = Muster: консоль администратора
title-tuning = Muster: настройка сети
title-watch = Muster: смотреть матч
title-demos = Muster: демо CoD:UO

## The relay's first screen and plain list

title-servers = Muster: браузер серверов CoD:UO
description-servers = Все работающие серверы Call of Duty: United Offensive 1.51 с картой, режимом, игроками и пингом: находите друзей, заходите и смотрите матчи вживую в браузере.
plain-every = Все серверы простым списком
plain-every-count = Все серверы ({ $count }) простым списком
plain-title = Muster: серверы CoD:UO, страница { $page } из { $pages }
plain-summary = { $shown } из { $total } серверов · страница { $page } из { $pages }
plain-previous = ← Назад
plain-next = Вперёд →
card-players = игроки: { $players }

matches-on = Матчи на { $server }
period-week = Эта неделя
period-month = Этот месяц
period-all = За всё время
board-month = Лучшие месяца в { $mode }
board-all = Лучшие за всё время в { $mode }
matches-intro = Все матчи, отслеженные этим релеем, от новых к старым. Матч отслеживается, пока его кто-то смотрит, и всегда на серверах, за которыми следит оператор.
matches-none = Ещё не отслежено ни одного матча.
matches-description = Последние матчи, отслеженные этим релеем: { $count }
board-empty = За этот период никто с рейтингом ещё не сыграл { $count } матчей.
match-title = { $map } на { $server }: { $result }
match-description = { $mode } { $when }, убийств: { $kills }, игроков: { $names }; { $ended }
player-rated = ; рейтинг { $rating } ± { $spread } в { $mode }
player-description = Убийств: { $kills }, смертей: { $deaths }, матчей: { $matches } (побед: { $won })
player-rating-chart-any = Рейтинг после каждого учтённого матча; таблицы ранжируют по нижней линии

## Moments

moment-headline-none = { $seconds } с на { $map }
moment-headline-kill = { $attacker } убил { $victim } ({ $weapon })
moment-headline-kills = { $count ->
    [one] { $count } убийство
    [few] { $count } убийства
   *[other] { $count } убийств
} за { $seconds } с на { $map }
seconds = { $seconds } с
moment-still = Где все стояли на { $map }
moment-kill = { $attacker } убил { $victim } ({ $weapon })
moment-download = Скачать клип (.dm_3)
moment-whole-match = Весь матч
moment-description = Момент длиной { $seconds } с на { $map } на сервере { $server }, можно смотреть в браузере или в игре.

## Added with the no-English check

admin-close = Закрыть консоль администратора
admin-tab = Админ
admin-not-connected = консоль не подключена
admin-command = команда консоли
admin-not-opened = консоль не открылась: { $why }
sparkline-title = Игроки на всех серверах за последние 24 ч
countries-credit = Страны:{ " " }
back-demos = ← Демо
back-servers = ← Серверы
not-listed = такого сервера здесь нет
match-records-unavailable = записи матчей недоступны
moment-missing = такого момента нет
moment-expired = такого момента нет (или срок его хранения истёк)
moments-unavailable = моменты недоступны
title-suffix = { " " }· Muster

## The tuning guide's advice and profiles

advice-snaps_above_server_rate = snaps { $snaps } запрашивает снапшот каждые { $asked } мс, но сервер на { $hz } Гц (кадры по { $frame } мс) может отдавать его не чаще чем раз в { $every } мс (около { $rate }/с). { $then }
advice-no-extra-snapshots = Просить больше здесь бесполезно: лишних снапшотов не будет.
advice-align-snaps = Выставьте snaps равным sv_fps сервера (не больше 30), чтобы интервалы совпадали.
advice-rate_delays_large_snapshots = При эффективном rate { $rate } байт/с учтённый снапшот в { $bytes } байт занимает { $takes } мс — дольше, чем { $asked } мс, которые запрашивает snaps: снапшоты приходят раз в { $every } мс (около { $per_second }/с). Без задержки проходят только снапшоты примерно до { $fits } байт; поднимите rate (или sv_maxRate сервера), если канал позволяет, или уменьшите snaps.
advice-cl_maxpackets_unaligned = cl_maxpackets { $maxpackets } ({ $threshold } мс) впервые выполняется на { $frame }-м кадре по { $frame_ms } мс при com_maxfps { $maxfps }: около { $per_second } пакетов/с, а не { $maxpackets }. cl_maxpackets { $aligned } даёт тот же ритм; ровная согласованная пара вроде 125/62 или 100/100 предсказуемее.
advice-usercmd_budget_exceeded = (1 + cl_packetdup { $packetdup }) × { $frames } кадров на пакет = { $commands } команд игрока, больше 32, которые вмещает пакет: клиент пишет MAX_PACKET_USERCMDS и оставляет только 32 последние. Повысьте частоту пакетов, понизьте com_maxfps или уменьшите cl_packetdup.
advice-usercmd_budget_near_limit = { $commands } команд игрока на пакет — близко к пределу в 32; держитесь заметно ниже.
advice-packetdup_high = cl_packetdup { $packetdup } нужен при подтверждённых потерях; 1 — сбалансированное значение по умолчанию, 2 покрывает заметные потери. Больше дублей не снижает ни пинг, ни дрожание снапшотов.
advice-packetdup_zero = cl_packetdup 0 отправляет каждую команду игрока один раз: годится для чистого канала с узкой полосой, но потерянный пакет теряет свои команды.
advice-sv_fps_above_snapshot_ceiling = sv_fps { $fps } меняет частоту обновлений игры, но клиенты не могут запросить больше 30 снапшотов/с, а сроки округляются вверх до целых кадров по { $frame } мс.
advice-time_nudge_behind = cl_timeNudge { $nudge } мс сдвигает картинку позади временной шкалы сервера; на пакеты, снапшоты и пинг это не влияет. 0 — правильное значение по умолчанию.
advice-time_nudge_ahead = cl_timeNudge { $nudge } мс сдвигает картинку впереди временной шкалы сервера; на пакеты, снапшоты и пинг это не влияет. 0 — правильное значение по умолчанию.
advice-snaps_below_server_rate = snaps { $snaps } запрашивает меньше снапшотов, чем сервер мог бы отправить; поднимите до sv_fps { $fps }, если позволяет канал.
profile-stock-baseline = Стандартные настройки
profile-stock-baseline-tradeoff = Экономный трафик; уже согласовано со стандартным сервером на 20 Гц.
profile-balanced-broadband = Сбалансированный для быстрого интернета
profile-balanced-broadband-tradeoff = Около 62,5 исходящего пакета/с с запасом приёма на самый тяжёлый учтённый пакет при 30 снапшотах/с.
profile-minimum-batching = Минимальные пачки команд
profile-minimum-batching-tradeoff = Одна возможность отправки на каждый кадр клиента в 10 мс; больше накладных расходов на пакеты и работы серверу.
profile-constrained = Слабое соединение
profile-constrained-tradeoff = Меньше датаграмм и меньший поток от сервера к клиенту; большие снапшоты могут задерживаться из-за rate.

## Banners and the widget

banner-online = в сети
banner-asking = опрос
banner-players = игроки

# Alerts as the relay sends them (Discord, ntfy, push, webhook text)
alert-a-server = сервер
alert-humans = На { $server } { $count } { $count ->
    [one] игрок
    [few] игрока
   *[other] игроков
} (порог { $at })
alert-server-up = { $server } снова работает
alert-server-down = { $server } перестал отвечать
alert-slot-free = На { $server } есть свободное место ({ $players }/{ $max })
alert-name-on = { $name } играет на { $server }
alert-name-left = { $name } покинул сервер
alert-other = { $server }: оповещение
alert-last-seen = { $seen } (последний раз: { $ago })
alert-match-over = Матч окончен на { $server }: { $map } { $mode }
alert-highlight = { $kind }: { $player } на { $map } ({ $server }), { $score } очк.
alert-play-of-the-match = Момент матча на { $map } ({ $server }): { $kind }, { $player }, { $score } очк.
alert-match-score = { $over }, { team-axis } { $axis } : { team-allies } { $allies }
alert-bots = { " " }(+{ $count } { $count ->
    [one] бот
    [few] бота
   *[other] ботов
})
alert-footer = Оповещение Muster { $key }

# Join check: what a player would meet
join-server-said = { $what } (сервер ответил «{ $text }»)
join-free-slot = есть свободное место: можно заходить
join-full = сервер заполнен
join-password = нужен пароль
join-wrong-protocol = сервер использует другой протокол
join-banned = вы забанены
join-refused = сервер отказал
join-no-answer = нет ответа
ask-failed = Не удалось спросить сервер: { $why }

## Highlights

highlights-title = Лучшие моменты
highlights-description = Лучшие моменты матчей, за которыми следит этот ретранслятор: серии, стрики, дальние выстрелы, первая кровь и клатчи, каждый — клип.
highlights-today = Лучшее за сегодня
highlights-week = Лучшее за неделю
highlights-latest = Новые
highlights-none = Лучших моментов пока нет: они появляются по ходу отслеживаемых матчей.
highlights-all-kinds = Все виды
highlights-on-server = На { $server }
play-of-the-match = Момент матча
player-highlights = Лучшие моменты
highlight-watch = Смотреть клип
highlight-no-clip = без клипа
highlight-score = { $score } очк.
highlight-by = { $kind }: { $player }
highlight-triple = Тройное убийство
highlight-quad = Четверное убийство
highlight-rampage = Неистовство
highlight-streak = Серия убийств
highlight-long-shot = Дальний выстрел
highlight-first-blood = Первая кровь
highlight-clutch = Клатч

## The API's page (/api/)
api-title = API
api-description = Все операции HTTP API этого ретранслятора: параметры, пример запроса и ответа и описание OpenAPI, по которому можно сгенерировать клиент.
api-lead = Все операции API этого ретранслятора с примером запроса и ответа. То же в виде OpenAPI 3.1, чтобы сгенерировать клиент:
api-needs-token = Нужен токен: оператора или сеанс владельца.
api-parameters = Параметры
api-parameter-name = Имя
api-parameter-in = Где
api-parameter-about = Описание
api-example-request = Пример запроса
api-example-answer = Пример ответа
