// The words of SMTP replies and DSN texts, one vocabulary per meaning (no such mailbox, mailbox
// full, too large, spam, virus, blocklist, authentication, rate, relay, DNS, sender, policy), in
// English and 20 other languages, with the providers' own codes (Microsoft RESOLVER/ROUTING/
// STOREDRV, Yahoo TSS/BL, Orange OFR/LPN). Only words: which meaning wins is classify.ts's job.
// Every pattern is matched against foldReply(text): lower case, Latin accents removed.

/** Lower case, Latin letters without accents ("Empfänger" → "empfanger", "Échec" → "echec"). */
export function foldReply(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\u00c0-\u024f\u1e00-\u1eff]/g, (c) => c.normalize('NFD').replace(/[\u0300-\u036f]/g, ''));
}

/** One case-insensitive pattern from readable alternatives, one or a few per line. */
export const anyOf = (...parts: RegExp[]): RegExp => new RegExp(parts.map((p) => p.source).join('|'), 'i');

// Cyrillic letters (Russian and Ukrainian): `\w` matches only ASCII.
const CY = '[а-яёіїєґ]*';
const cyr = (source: string): RegExp => new RegExp(source.replaceAll('~', CY));

/** "Not now": a 5xx that asks to come back later (greylisting has its own rule). */
export const TRY_LATER = anyOf(
  /try (?:again )?later|try again in|please retry|retry (?:later|in)|resources temporarily|system is busy/,
  /temporar(?:y|ily) (?:failure|error|unavailable|rejected|deferred|blocked|local problem)/,
  /sp(?:ae|a)ter (?:noch einmal|erneut)|vorubergehend/, // de
  /(?:essayer|reessayer|reessayez) plus tard|temporairement/, // fr
  /riprova(?:re)? (?:piu )?tardi|temporaneamente/, // it
  /(?:intentelo|intente|vuelva a intentarlo) (?:de nuevo )?mas tarde|temporalmente/, // es
  /tente (?:novamente )?mais tarde|temporariamente/, // pt
  /probeer (?:het )?later|tijdelijk/, // nl
  /sprobuj (?:ponownie )?pozniej|tymczasowo/, // pl
  /zkuste (?:to )?pozdeji|docasne/, // cs
  cyr('попробуйте (?:повторить )?позже|повторите (?:попытку )?позже|временно|спробуйте пізніше|тимчасово'), // ru, uk
  /稍后再试|稍後再試|稍后重试|暂时|暫時|しばらくしてから|後ほど|잠시 후|나중에 다시/, // zh, ja, ko
);

/** Rate limits and volume throttling: only a rate is a rate ("exceeded ... limit" alone is often a size). */
export const RATE = anyOf(
  /rate limit|ratelimit|throttl|unusual rate|unexpected volume|exceeded .{0,20}rate|frequency limited/,
  /too many (?:messages|connections|recipients|concurrent|mails|e-?mails|sessions|smtp|spams?)/,
  /\[tss0[14]\]|\[tss11\]|4\.7\.500|sending (?:too|very) (?:fast|many)|receiving mail at a rate/,
  /excessive (?:volume|connections|messages|unknown recipients)|connection limit|sending limit/,
  /zu viele (?:verbindungen|nachrichten|e-?mails|mails)|sendelimit/, // de
  /trop de (?:connexions|messages|mails|courriels)|limite d'envoi/, // fr
  /troppi (?:messaggi|collegamenti)|troppe (?:connessioni|e-?mail)/, // it
  /demasiad[oa]s (?:conexiones|mensajes|correos)/, // es
  /(?:muitas|demasiadas) (?:conexoes|mensagens)|limite de envio/, // pt
  /te veel (?:verbindingen|berichten)/, // nl
  /zbyt (?:wiele|duzo) (?:polaczen|wiadomosci)/, // pl
  cyr('слишком много (?:соединений|сообщений|писем)|превышен~ (?:лимит|частот)~ (?:отправки|соединений)'), // ru
  /频率|頻率|过于频繁|過於頻繁|发送过快|连接数过多|送信数が多すぎ|接続数が多すぎ|너무 많은 (?:연결|메시지)|발송 제한/,
);

/** Our IP or domain on a blocklist, or refused for its reputation. */
export const BLOCKLIST = anyOf(
  /block ?list|black ?list|spamhaus|barracuda ?(?:reputation|central)|spamcop|sorbs|\bdnsbls?\b|uribl|\brbl\b/,
  /listed (?:at|on|in|by)|(?:poor|bad|low) (?:ip |sender |domain )?reputation|reputation (?:of|is)/,
  /\[tss09\]|\[ph01\]|\(s3140\)|\(s3150\)|\(s775\)|ofr_?50[36]|[[(]bl\d*[\])]/,
  /banned sending|access denied, banned|traffic not accepted from this ip|on our block list|blocked senders?/,
  /client host .{0,80}(?:blocked|rejected|refused)|blocked (?:using|because of|due to ip)|blocked - see|:blocked\)/,
  /\b(?:ip|host|address) .{0,60}(?:is|has been|was) (?:blocked|blacklisted|banned|listed)/,
  /(?:envelope|connection|sender ip|your ip) (?:blocked|rejected|refused)|refused by (?:dnsbl|blacklist)/,
  /dynamic (?:ip|address)|residential ip|not accepted from (?:your|this) (?:ip|network)/,
  /sperrliste|schwarzen? liste|ip-adresse .{0,30}(?:gesperrt|blockiert)/, // de
  /liste noire|liste de blocage|\bip .{0,30}(?:bloquee|listee|blacklistee)|mauvaise reputation/, // fr
  /lista nera|\bip .{0,30}bloccat[oa]|cattiva reputazione/, // it
  /lista negra|lista de bloqueo|\bip .{0,30}(?:bloquead[oa]|listad[oa])|mala reputacion|ma reputacao/, // es, pt
  /zwarte lijst|blokkeerlijst|czarn\w* lis[ct]|cern\w* listin|kara liste|svartlist|sortlist|feketelist/,
  cyr('черн~ спис~|ip[- ]адрес~ .{0,30}заблокирован'), // ru, uk
  /黑名单|黑名單|列入黑|ブラックリスト|ブロックリスト|블랙리스트|차단 ?목록|lista neagra|μαύρη λίστα/,
);

/** Sender authentication: SPF, DKIM, DMARC, ARC, rDNS/HELO, and Microsoft's RESOLVER.RST auth codes. */
export const AUTH = anyOf(
  /dmarc|unauthenticated|\bspf\b|sender policy framework|\bdkim\b|\barc\b|anti-?spoof|spoof(?:ing|ed)/,
  /not authenticated|authentication (?:required|failed|check)|resolver\.rst\.(?:authrequired|sendernotauth)/,
  /\bptr\b|reverse dns|\brdns\b|reverse lookup|helo|ehlo|forward-confirmed|fcrdns/,
  /authentifizierung|nicht authentifiziert|authentification|non authentifie|autenticazione|autenticacion/,
  /autenticacao|authenticatie|uwierzytelni|overeni odesilatele|hitelesites|kimlik dogrulama/,
  cyr('аутентификац~|автентифікац~|认证|認證|認証|인증'), // ru, uk, zh, ja, ko
);

/** Viruses, malware, blocked attachment types and Amavis "BANNED" (a banned file name or type). */
export const VIRUS = anyOf(
  /(?<!spam (?:or|and|\/) )virus|malware|infected|trojan|ransomware|malicious (?:attachment|file|code)/,
  /\battachment|file type|file extension|potential security issue|executable/,
  /blocked file|prohibited file|- banned:|banned contents? alert|banned (?:file|attachment)/,
  /dateianhang|dateityp|schadsoftware|piece jointe|logiciel malveillant|allegato|tipo di file/, // de, fr, it
  /archivo adjunto|tipo de archivo|tipo de arquivo|\banexo\b|bijlage|bestandstype|wirus|zalacznik/,
  cyr('вирус~|вложени~|вредонос~|病毒|恶意|ウイルス|添付ファイル|바이러스|첨부 ?파일|악성'),
);

/** Spam verdicts and content refusals by filters. */
export const SPAM = anyOf(
  /spam|unsolicited|bulk mail|phish|suspicious|likely (?:unsolicited|spam)|\[cs0\d\]/,
  /junk mail|considered (?:as )?junk|malicious (?:url|link|content)/,
  /content (?:rejected|policy|filter|violation|scanner|blocked|denied|refused)|banned content|message filtered/,
  /message (?:content )?(?:was )?(?:blocked|rejected|refused) (?:as|due to|because)/,
  /message (?:content )?(?:was )?(?:blocked|rejected) by (?!(?:\w+ )?polic)/,
  /url (?:is )?(?:blocked|listed)|scam|fraud/,
  /unerwunscht|indesirable|pourriel|indesiderat|no deseado|correo basura|nao solicitad|indesejad|ongewenst/,
  /niechcian|nevyzadan|istenmeyen|oonskad|uonsket|keretlen/,
  cyr('нежелательн~|небажан~|垃圾邮件|垃圾郵件|垃圾信|迷惑メール|スパム|스팸|광고성'),
);

/** Mailbox full or over quota (the recipient's storage, not the server's). */
export const FULL = anyOf(
  /mailbox (?:is )?full|over ?quota|overquota|quota (?:exceeded|exceed)|exceeded .{0,20}(?:quota|storage)/,
  /out of storage|mailbox size limit|mailbox (?:has )?exceeded|full mailbox|inbox (?:is )?full/,
  /storage (?:space|limit|quota)|disk quota|quotaexceeded|storage allocation/,
  /postfach(?: \S+){0,3} (?:voll|uberfullt)|speicherplatz .{0,20}(?:erschopft|voll)/, // de
  /(?:boite|\bbal\b)(?: \S+){0,4} pleine|quota .{0,20}(?:depasse|atteint)/, // fr
  /casella(?: \S+){0,5} piena|spazio esaurito|quota superata/, // it
  /buzon(?: \S+){0,3} (?:lleno|completo)|cuota .{0,20}(?:excedida|superada)/, // es
  /caixa(?: \S+){0,4} (?:cheia|lotada)|(?:cota|quota) (?:excedida|esgotada)/, // pt
  /(?:mailbox|postbus|brievenbus)(?: \S+){0,4} vol\b|quot(?:a|um) overschreden/, // nl
  /skrzynka(?: \S+){0,3} (?:pe[lł]na|przepe[lł]niona)|schranka(?: \S+){0,3} (?:plna|preplnena)/, // pl, cs
  cyr('ящик~(?: \\S+){0,3} (?:переполнен~|заполнен~)|превышен~ квот~|квот~ .{0,30}превышен~|переповнен~'),
  /(?:邮箱|信箱|郵箱|空间|空間|容量)[^，。,.]{0,6}(?:已满|已滿|不足)|(?:メールボックス|容量)[^。]{0,12}(?:いっぱい|超過)/,
  /(?:메일함|사서함|용량)[^.]{0,12}(?:가득|초과)|posta kutusu(?: \S+){0,2} dolu/, // ko, tr
  /(?:brevlad|postkass|postboks|inkorg)\S*(?: \S+){0,3} (?:full|fuld)|postilaatikko (?:on )?taynna/, // sv da no fi
  /postafiok (?:megtelt|tele)|casuta(?: \S+){0,2} (?:este )?plina|γραμματοκιβώτιο[^.]{0,20}γεμάτο/, // hu ro el
);

/** Message too large (also RFC 3463 x.2.3 "message length exceeds administrative limit"). */
export const SIZE = anyOf(
  /too (?:large|big)|size (?:limit|exceed)|exceeds? .{0,30}size|message size|message length exceeds/,
  /sizelimit|recipsizelimit/,
  /zu gro(?:ss|ß)|gro(?:ss|ß)e .{0,30}uberschritten/, // de
  /trop (?:volumineux|gros)|taille .{0,30}(?:depasse|atteinte|maximale)/, // fr
  /troppo (?:grande|grosso|voluminoso)|dimensione .{0,30}(?:superat|massima)/, // it
  /demasiado grande|(?:excede|supera) el tamano|tamano maximo|muito grande|excede o tamanho|tamanho maximo/,
  /te groot|zbyt duza|za duza|prilis velk|tul nagy|liian suuri|prea mare|for stor|cok buyuk/,
  cyr('слишком (?:велик|больш)~|превышен~ (?:\\S+ ){0,2}размер~|размер~ (?:\\S+ ){0,2}превыш~'),
  /(?:邮件|郵件|信件)[^，。]{0,6}(?:超过|超出|过大|太大|過大)|大きすぎ|サイズ[^。]{0,6}超|(?:크기|용량) ?(?:초과|제한)/,
);

/** Our sender address or its domain refused. */
export const SENDER = anyOf(
  /sender (?:address |domain )?(?:has been |is |was )?(?:rejected|invalid|unknown|denied|refused)/,
  /domain of sender|sender verify failed|unverifiable sender|return path|invalid dns mx|envelope sender/,
  /sender(?:'s)? (?:address |domain )?(?:\S+ )?(?:does not exist|not found)/,
  /absender\w* .{0,20}(?:abgelehnt|ungultig|unbekannt)|expediteur .{0,20}(?:refuse|invalide|inconnu)/,
  /mittente .{0,20}(?:rifiutato|non valido)|remitente .{0,20}(?:rechazado|no valido)|remetente .{0,20}rejeitado/,
  cyr('отправител~ .{0,20}(?:отклон~|недопустим~)|发件人[^，。]{0,6}(?:被拒绝|无效)'),
);

/** Relaying refused: the host does not take mail for this domain. */
export const RELAY = anyOf(
  /relay(?:ing)? (?:access )?(?:denied|not permitted|prohibited|not allowed|disallowed|refused)/,
  /not permitted to relay|unable to relay|we do not relay|no relaying|allowed rcpthosts/,
  /relay(?:ing)? (?:nicht erlaubt|verweigert|untersagt)|relais (?:non autorise|refuse|interdit)/, // de, fr
  /(?:relay|inoltro) non (?:consentito|permesso|autorizzato)/, // it
  /(?:relay|retransmision|reenvio|retransmissao) (?:no permitid|denegad|nao permitid|negad)/, // es, pt
  /relay(?:ing)? (?:niet toegestaan|geweigerd|niedozwolony|zakazan)|przekazywanie (?:niedozwolone|zabronione)/,
  cyr('(?:пересылка|ретрансляция) (?:запрещена|не разрешена)|不允许(?:转发|中继)|禁止(?:转发|中继)|中継[^。]{0,6}拒否'),
);

/** The recipient's domain does not exist or takes no mail. */
export const DNS = anyOf(
  /host (?:not found|unknown)|domain (?:not found|does not exist|name not found)|no such domain/,
  /no mx|null mx|unroutable|does not accept mail|nonexistent domain|non-existent domain|nxdomain/,
  /domain (?:existiert nicht|nicht gefunden)|domaine (?:inexistant|inconnu|introuvable)/, // de, fr
  /dominio (?:inesistente|sconosciuto|inexistente|desconocido|no existe|nao existe)/, // it, es, pt
  /domein (?:bestaat niet|onbekend)|domena nie istnieje/, // nl, pl
  cyr('домен~ (?:не существует|не найден~)|域名不存在|ドメインが存在しません|도메인이 존재하지'),
);

/** The mailbox does not exist, or is disabled or closed: the only words that suppress. */
export const NO_MAILBOX = anyOf(
  /user unknown|unknown user|no such (?:user|recipient|mailbox|account|address|person)/,
  /unknown (?:recipient|mailbox|address|local ?part)|recipient unknown|addressee unknown|unknown email address/,
  /(?:user|recipient|mailbox|address|account|email account)(?: name)? (?:does not|doesn't|did not) exist/,
  /does not exist|recipient (?:address )?rejected|not (?:a )?valid (?:mailbox|recipient|user|address)/,
  /invalid (?:recipient|mailbox|address|user)|recipient not found|address not found|unrouteable address/,
  /mailbox (?:unavailable|not found|disabled|inactive|not available|does not exist)/,
  /mailbox (?:is )?(?:disabled|inactive|unavailable)|deactivated|no mailbox (?:here|by that name)/,
  /account (?:is |has been )?(?:disabled|inactive|suspended|deactivated|closed|blocked|locked|expired|deleted)/,
  /doesn't have (?:a |an )?(?:[\w.-]+ )?account|not our customer|mailbox (?:name )?not allowed/,
  /user (?:not found|is inactive|is disabled|is suspended|suspended|disabled|inactive)/,
  /no longer (?:active|valid|in use|available)|bad destination mailbox|undeliverable address/,
  /no such local user|destination address rejected|\(554\.30\)|archived (?:recipient|mailbox|account)/,
  /resolver\.adr\.(?:recip(?:ient)?notfound|exrecipnotfound)/,
  /(?:empf(?:ae|a)nger|benutzer|postfach|adresse)\w*(?: \S+){0,3} (?:unbekannt|existiert nicht|nicht gefunden)/,
  /(?:utilisateur|destinataire|adresse|compte)(?: \S+){0,3} (?:inconnue?|inexistante?|introuvable|invalide)/,
  /(?:boite|compte)(?: \S+){0,3} (?:archivee?|bloquee?|supprimee?|desactivee?)/, // fr
  /(?:utente|destinatario|indirizzo|casella)(?: \S+){0,3} (?:inesistente|sconosciut[oa]|non (?:esiste|trovat))/,
  /nessun (?:utente|destinatario)|casella di posta non esiste/, // it
  /(?:usuario|destinatario|cuenta|buzon|direccion)(?: \S+){0,3} (?:inexistente|desconocid[oa]|no existe)/,
  /no existe (?:dicha|tal|ese)|usuario no (?:existe|encontrado)/, // es
  /(?:usuario|destinatario|conta|caixa|endereco)(?: \S+){0,3} (?:inexistente|desconhecid[oa]|nao encontrad[oa])/,
  /conta(?: \S+){0,3} desativad[oa]/, // pt
  /onbekende (?:gebruiker|ontvanger|geadresseerde)|(?:gebruiker|ontvanger|adres)\w*(?: \S+){0,2} bestaat niet/,
  /(?:uzytkownik|odbiorca|adresat|konto)(?: \S+){0,2} nie istnieje|nie ma takiego (?:uzytkownika|konta|adresu)/,
  /(?:uzivatel|adresat|prijemce|schranka|adresa)(?: \S+){0,2} neexistuje|neznamy (?:uzivatel|adresat|prijemce)/,
  cyr(
    '(?:пользовател~|адресат~|получател~|ящик~|користувач~|отримувач~)(?: \\S+){0,2} ' +
      'не (?:найден~|существует|знайден~|існує)',
  ), // ru, uk
  cyr('нет такого (?:пользователя|адресата|ящика)|неизвестн~ (?:пользовател~|адресат~|получател~)'),
  /(?:用户|用戶|使用者|收件人|收件者|邮箱|郵箱|信箱|帐号|账号|帳號|账户|帳戶|地址)[^，。,.]{0,6}不存在|查无此|无此用户/,
  /(?:ユーザー?|宛先|アカウント|メールアドレス)[^。]{0,12}(?:存在しません|見つかりません)/, // ja
  /존재하지 않는 (?:사용자|계정|주소|수신자)|(?:사용자|수신자|계정)[^.]{0,6}(?:없습니다|찾을 수 없)/, // ko
  /(?:kullan[iı]c[iı]|al[iı]c[iı])(?: \S+){0,2} (?:bulunamad[iı]|mevcut degil)|bilinmeyen al[iı]c[iı]/, // tr
  /okand mottagare|ukendt (?:modtager|bruger)|ukjent (?:mottaker|bruker)|mottakeren finnes ikke/, // sv, da, no
  /(?:mottagaren|modtageren|adressen) (?:finns|findes) ikke?|tuntematon (?:vastaanottaja|kayttaja)/, // sv da fi
  /vastaanottaja\w* ei ole olemassa|ismeretlen (?:cimzett|felhasznalo)|cimzett nem letezik/, // fi, hu
  /destinatar (?:necunoscut|inexistent)|utilizator (?:necunoscut|inexistent)|(?:ά|α)γνωστος παραλ(?:ή|η)πτης/,
);

/** Policy refusals, and messages refused for their form (RFC compliance, headers). */
export const POLICY = anyOf(
  /polic(?:y|ies)|not accepted|prohibit|not authori[sz]ed|notauthorized|restrictedto/,
  /\brfc ?\d* ?(?:compliant|compliance)|bad header|invalid header|malformed header|missing .{0,20}header/,
  /richtlinie|politique|politica|beleid|polityk|策略|政策|ポリシー|정책/,
  cyr('политик~|політик~'),
);

/** Transient connection and server troubles. */
export const CONNECTION = anyOf(
  /service not available|closing (?:transmission )?channel|too busy|connection (?:refused|timed out|lost)/,
);
