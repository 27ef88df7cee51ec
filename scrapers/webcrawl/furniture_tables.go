package webcrawl

// The words of page furniture, a table per language (see furnitureWords
// for what each list holds). Lower case; a colon in a lead-in, a credit or
// a dateline must follow the words on the page (a full-width colon or a
// space before it counts the same).

var englishFurniture = furnitureWords{
	asides: []string{
		"you may also like", "you might also like", "you may like", "you might like", "you may also be interested",
		"related products", "related items", "related articles", "related posts", "related stories", "related content",
		"related reading", "related news", "related resources", "related links",
		"customers also", "customers who bought", "customers who viewed", "people who viewed", "people who bought", "people also",
		"recently viewed", "recommended for you", "recommended products", "recommended articles", "recommended reading",
		"similar items", "similar products", "similar listings", "frequently bought together", "complete the look",
		"more to explore", "more to love", "read next", "what to read next", "up next", "more stories", "more articles",
		"popular posts", "popular articles", "most popular", "most read", "trending now", "latest posts", "latest articles",
		"recent posts", "sponsored", "advertisement", "share this", "share on", "follow us", "sign up for our newsletter",
		"subscribe to our newsletter", "join our newsletter", "join our mailing list", "get our newsletter",
		// what a firm's service page shows of its other pages
		"related services", "related insights", "featured insights", "latest insights", "more insights", "recent insights",
		"from the blog", "from our blog",
		// what a forum lists under a thread (XenForo, phpBB, vBulletin, Stack Exchange)
		"similar threads", "similar topics", "similar discussions", "related threads", "related topics",
		"related discussions", "related questions", "linked questions", "hot network questions",
		"users who are viewing this thread", "who is online", "users browsing this thread",
	},
	articleAsides: []string{"leave a reply", "leave a comment", "comments", "join the conversation",
		"about the author", "post a comment", "responses", "discussion"},
	labels: []string{
		"read more", "learn more", "see more", "view more", "find out more", "more",
		"read the story", "read their story", "read blog", "read case study", "watch demo",
		"get started", "contact us", "know more", "continue reading", "view all",
		"see all", "explore", "discover more", "read article", "download",
		"register now", "apply now", "book now", "view details", "details",
		"request a demo", "get a quote", "start free trial", "sign up", "subscribe",
		"share", "show more", "shop now", "add to cart", "add a comment", "embed",
		"get in touch", "download now", "book a consultation", "see case studies", "compare plans",
		"get started today", "load more", "show all", "see details", "read full story",
		"read the full story", "read the report", "watch video", "watch now", "view profile",
		"view company profile", "compare", "close", "toggle caption", "read full article",
		"shop all", "see all results",
	},
	leadIns:   []string{"read more:", "read also:", "also read:", "see also:", "related:", "read:", "watch:", "more on this:"},
	credits:   []string{"photo:", "photos:", "photo credit", "photo by", "image:", "image credit", "image via", "credit:", "credits:", "source:", "illustration:", "©", "copyright ©", "copyright (c)"},
	datelines: []string{"posted on", "published on", "published:", "last updated", "last modified", "updated:", "updated on", "release date:", "posted by", "written by"},
	notices: []string{"you must be logged in", "log in to comment", "login to comment", "to view the full story",
		"already a subscriber", "subscribe to continue reading", "all rights reserved", "comments are closed",
		"email address will not be published", "uses akismet", "this website uses cookies", "this site uses cookies", "we use cookies"},
}

var germanFurniture = furnitureWords{
	asides: []string{
		"mehr zum thema", "mehr aus", "mehr von", "weitere artikel", "weitere beiträge", "weitere nachrichten",
		"weitere meldungen", "weitere news", "weitere themen", "das könnte sie auch interessieren",
		"das könnte dich auch interessieren", "das könnte sie interessieren", "das könnte dich interessieren",
		"das interessiert sie vielleicht auch", "auch interessant", "ebenfalls interessant", "ähnliche artikel",
		"ähnliche beiträge", "ähnliche themen", "ähnliche rezepte", "verwandte artikel", "verwandte themen",
		"verwandte beiträge", "lesen sie auch", "lesen sie mehr", "lies auch", "zum weiterlesen", "weiterlesen",
		"weiterführende links", "weiterführender link", "empfehlungen", "unsere empfehlung", "neueste artikel",
		"neueste beiträge", "neuste beiträge", "aktuelle beiträge", "aktuelle artikel", "beliebte artikel",
		"beliebte beiträge", "meistgelesen", "meist gelesen", "am meisten gelesen", "top-artikel", "top artikel",
		"newsletter", "teilen", "diesen artikel teilen", "artikel teilen", "beitrag teilen", "seite teilen",
		"folgen sie uns", "folge uns", "anzeige", "werbung",
	},
	articleAsides: []string{"kommentare", "kommentar schreiben", "schreibe einen kommentar", "hinterlasse einen kommentar",
		"hinterlassen sie einen kommentar", "kommentieren", "leserkommentare", "diskussion", "über den autor",
		"über die autorin", "zum autor", "zur autorin"},
	labels: []string{
		"weiterlesen", "mehr lesen", "mehr erfahren", "mehr", "mehr anzeigen", "alle anzeigen", "zurück",
		"zurück zur übersicht", "zurück zur startseite", "zur übersicht", "nach oben", "zurück nach oben",
		"zum seitenanfang", "seitenanfang", "drucken", "seite drucken", "artikel drucken", "rezept drucken",
		"druckversion", "teilen", "kommentieren", "jetzt kommentieren", "kommentar schreiben", "antworten",
		"keine kommentare", "bisher keine kommentare", "noch keine kommentare", "bild anzeigen", "bild vergrößern",
		"vergrößern", "schließen", "herunterladen", "abonnieren", "newsletter abonnieren", "jetzt abonnieren",
		"merken", "artikel merken", "empfehlen", "artikel empfehlen", "seite empfehlen", "per e mail versenden",
		"per mail teilen",
	},
	leadIns: []string{"lesen sie auch", "lesen sie mehr", "lesen sie hier", "lies auch", "lies hier", "auch interessant:",
		"mehr zum thema:", "siehe auch:", "weiterlesen:", "zum weiterlesen:", "lesenswert:", "lesetipp:", "mehr dazu:",
		"hier geht es zu", "hier geht's zu", "hier gehts zu", "hier lesen sie", "das könnte sie auch interessieren:"},
	credits:   []string{"foto:", "fotos:", "bild:", "bilder:", "titelbild:", "titelfoto:", "bildquelle:", "quelle:", "quellen:", "bild via", "foto via", "grafik:", "fotonachweis:", "bildnachweis:"},
	datelines: []string{"veröffentlicht am", "veröffentlicht:", "aktualisiert am", "aktualisiert:", "zuletzt aktualisiert", "erstellt am", "geschrieben von", "geschrieben am", "verfasst von", "verfasst am", "der beitrag wurde am", "dieser beitrag wurde am", "dieser eintrag wurde", "stand:", "autor:", "autorin:"},
	notices: []string{"müssen sie sich anmelden", "müssen sie angemeldet sein", "müssen sich einloggen", "müssen angemeldet sein",
		"bitte loggen sie sich", "bitte melden sie sich an", "um kommentieren zu können", "um kommentare zu schreiben",
		"e-mail-adresse wird nicht veröffentlicht", "email-adresse wird nicht veröffentlicht", "verwendet akismet",
		"alle rechte vorbehalten", "kommentare sind geschlossen", "kommentarfunktion ist", "keine kommentare möglich",
		"sie sind aktuell nicht eingeloggt", "sie sind nicht angemeldet", "verwendet cookies", "nutzt cookies",
		"benutzt cookies", "mit der nutzung dieser website", "nur für abonnenten", "jetzt abonnieren"},
}

var frenchFurniture = furnitureWords{
	asides: []string{"à lire aussi", "lire aussi", "à voir aussi", "à découvrir aussi", "sur le même sujet", "sur le même thème",
		"articles similaires", "articles liés", "articles connexes", "dans la même rubrique", "vous aimerez aussi",
		"vous aimerez peut-être", "vous pourriez aussi aimer", "vous pourriez aimer", "les plus lus", "les plus populaires",
		"derniers articles", "nos derniers articles", "partager", "partagez", "suivez-nous", "suivez nous",
		"inscrivez-vous à notre newsletter", "abonnez-vous à notre newsletter", "plus de sujets", "publicité"},
	articleAsides: []string{"commentaires", "laisser un commentaire", "laissez un commentaire", "publier un commentaire",
		"réagir", "réactions", "à propos de l'auteur", "à propos de l’auteur"},
	labels: []string{"lire la suite", "en savoir plus", "voir plus", "lire plus", "retour", "retour en haut",
		"haut de page", "retour en haut de page", "imprimer", "imprimer cette page", "partager", "commenter", "répondre",
		"aucun commentaire", "fermer", "s'abonner", "télécharger", "afficher plus", "voir tout", "tout voir"},
	leadIns:   []string{"à lire aussi", "lire aussi", "à voir aussi", "voir aussi", "à lire également", "lire également", "à découvrir:", "lire la suite:"},
	credits:   []string{"photo:", "photos:", "crédit:", "crédits:", "crédit photo", "crédits photo", "source:", "sources:", "illustration:", "image:"},
	datelines: []string{"publié le", "mis à jour le", "modifié le", "publié:", "mis à jour:", "dernière mise à jour"},
	notices: []string{"tous droits réservés", "vous devez être connecté", "adresse e-mail ne sera pas publiée",
		"adresse de messagerie ne sera pas publiée", "adresse email ne sera pas publiée", "utilise akismet",
		"réservé aux abonnés", "déjà abonné", "utilise des cookies", "avez-vous apprécié cet article"},
}

var spanishFurniture = furnitureWords{
	asides: []string{"noticias relacionadas", "notas relacionadas", "artículos relacionados", "articulos relacionados",
		"te puede interesar", "te puede gustar", "también te puede interesar", "le puede interesar", "puede interesarte",
		"te recomendamos", "lee también", "lea también", "más noticias", "más leídas", "lo más leído", "lo más visto",
		"últimas noticias", "relacionados", "relacionadas", "comparte", "compartir", "síguenos", "siguenos",
		"suscríbete", "publicidad"},
	articleAsides: []string{"comentarios", "deja un comentario", "deja tu comentario", "dejar un comentario", "sobre el autor"},
	labels: []string{"leer más", "ver más", "seguir leyendo", "volver", "volver arriba", "imprimir", "compartir",
		"comentar", "responder", "sin comentarios", "cerrar", "suscríbete", "descargar", "ver todo", "ver todos"},
	leadIns: []string{"lea también", "lee también", "lea más", "lee más", "lea:", "lee:", "mira:", "puedes ver:",
		"te puede interesar:", "le puede interesar:", "también puedes leer", "ver también", "también lee", "también lea",
		"más información:", "relacionado:", "relacionada:", "noticia relacionada", "nota relacionada"},
	credits:   []string{"foto:", "fotos:", "fuente:", "fuentes:", "crédito:", "créditos:", "imagen:", "ilustración:"},
	datelines: []string{"publicado el", "actualizado el", "publicado:", "actualizado:", "última actualización"},
	notices: []string{"todos los derechos reservados", "debes iniciar sesión", "debe iniciar sesión",
		"dirección de correo electrónico no será publicada", "correo electrónico no será publicada", "usa akismet",
		"ya eres suscriptor", "utiliza cookies", "utilizamos cookies", "usamos cookies", "únete a nuestro canal",
		"síguenos en", "siguenos en", "hazte miembro", "suscríbete a nuestro", "tú también puedes hacer periodismo"},
}

var italianFurniture = furnitureWords{
	asides: []string{"leggi anche", "potrebbe interessarti", "ti potrebbe interessare", "potrebbero interessarti",
		"articoli correlati", "notizie correlate", "correlati", "più letti", "i più letti", "ultime notizie",
		"condividi", "seguici", "iscriviti alla newsletter", "pubblicità"},
	articleAsides: []string{"commenti", "lascia un commento", "lascia un commento", "sull'autore", "l'autore"},
	labels: []string{"leggi tutto", "leggi di più", "continua a leggere", "scopri di più", "torna su", "stampa",
		"condividi", "commenta", "rispondi", "nessun commento", "chiudi", "iscriviti", "scarica"},
	leadIns:   []string{"leggi anche", "leggi pure", "vedi anche", "potrebbe interessarti:", "approfondisci:"},
	credits:   []string{"foto:", "fonte:", "fonti:", "crediti:", "credito:", "immagine:"},
	datelines: []string{"pubblicato il", "aggiornato il", "ultimo aggiornamento", "pubblicato:"},
	notices: []string{"tutti i diritti riservati", "devi essere connesso", "indirizzo email non sarà pubblicato",
		"usa akismet", "utilizza cookie", "utilizza i cookie", "già abbonato"},
}

var portugueseFurniture = furnitureWords{
	asides: []string{"leia também", "veja também", "notícias relacionadas", "artigos relacionados", "mais lidas",
		"mais lidos", "você também pode gostar", "pode te interessar", "pode interessar", "compartilhe", "partilhe",
		"siga-nos", "publicidade"},
	articleAsides: []string{"comentários", "deixe um comentário", "deixe seu comentário", "sobre o autor"},
	labels: []string{"leia mais", "saiba mais", "ver mais", "voltar", "voltar ao topo", "imprimir", "compartilhar",
		"partilhar", "comentar", "responder", "fechar", "baixar"},
	leadIns:   []string{"leia também", "leia mais:", "veja também", "saiba mais:", "veja:", "leia:"},
	credits:   []string{"foto:", "fotos:", "fonte:", "crédito:", "créditos:", "imagem:"},
	datelines: []string{"publicado em", "atualizado em", "publicado:", "atualizado:"},
	notices: []string{"todos os direitos reservados", "precisa fazer login", "endereço de e-mail não será publicado",
		"email não será publicado", "usa o akismet", "utiliza cookies", "usa cookies"},
}

var polishFurniture = furnitureWords{
	asides: []string{"czytaj także", "czytaj też", "zobacz także", "zobacz też", "polecamy", "podobne artykuły",
		"powiązane artykuły", "powiązane", "najczęściej czytane", "najpopularniejsze", "najnowsze", "udostępnij",
		"przeczytaj także", "przeczytaj też", "reklama"},
	articleAsides: []string{"komentarze", "dodaj komentarz", "skomentuj", "o autorze"},
	labels: []string{"czytaj więcej", "czytaj dalej", "więcej", "zobacz więcej", "drukuj", "wróć", "powrót", "do góry",
		"udostępnij", "skomentuj", "odpowiedz", "brak komentarzy", "zamknij", "subskrybuj", "pobierz"},
	leadIns:   []string{"czytaj także", "czytaj też", "czytaj więcej", "zobacz także", "zobacz też", "przeczytaj także", "przeczytaj też", "polecamy:", "czytaj:", "zobacz:"},
	credits:   []string{"fot.", "fot:", "foto:", "zdjęcie:", "zdjęcia:", "źródło:", "źródła:", "ilustracja:"},
	datelines: []string{"opublikowano", "aktualizacja:", "data publikacji", "data dodania", "dodano:", "autor:"},
	notices: []string{"wszelkie prawa zastrzeżone", "musisz być zalogowany", "adres e-mail nie zostanie opublikowany",
		"adres email nie zostanie opublikowany", "używa plików cookie", "korzysta z plików cookie", "wykorzystuje pliki cookie"},
}

var dutchFurniture = furnitureWords{
	asides: []string{"lees ook", "meer over", "gerelateerde artikelen", "gerelateerd", "meest gelezen", "delen",
		"volg ons", "meer nieuws"},
	articleAsides: []string{"reacties", "laat een reactie achter", "geef een reactie", "over de auteur"},
	labels:        []string{"lees meer", "meer lezen", "terug", "naar boven", "afdrukken", "printen", "delen", "reageren", "sluiten"},
	leadIns:       []string{"lees ook", "lees meer:", "zie ook:"},
	credits:       []string{"foto:", "beeld:", "bron:", "afbeelding:"},
	datelines:     []string{"gepubliceerd op", "bijgewerkt op", "laatst bijgewerkt"},
	notices:       []string{"alle rechten voorbehouden", "e-mailadres wordt niet gepubliceerd", "gebruikt akismet", "maakt gebruik van cookies"},
}

var finnishFurniture = furnitureWords{
	asides:        []string{"lue myös", "aiheesta lisää", "luetuimmat", "uusimmat", "jaa"},
	articleAsides: []string{"kommentit", "kommentoi"},
	labels:        []string{"lue lisää", "jaa", "tulosta", "sulje", "takaisin"},
	leadIns:       []string{"lue myös", "lue lisää:"},
	credits:       []string{"kuva:", "kuvat:", "lähde:"},
	datelines:     []string{"julkaistu", "päivitetty"},
	notices:       []string{"kaikki oikeudet pidätetään"},
}

var japaneseFurniture = furnitureWords{
	asides: []string{"関連記事", "関連する記事", "関連ニュース", "あわせて読みたい", "合わせて読みたい", "おすすめ記事",
		"人気記事", "こちらもおすすめ", "この記事をシェア", "シェアする", "新着記事", "ランキング", "広告"},
	articleAsides: []string{"コメント"},
	labels:        []string{"続きを読む", "もっと見る", "印刷", "シェア", "ツイート", "閉じる", "トップへ戻る", "ページトップへ", "ページの先頭へ"},
	leadIns:       []string{"関連記事:", "あわせて読みたい"},
	credits:       []string{"写真:", "出典:", "画像:", "提供:"},
	datelines:     []string{"公開日", "更新日", "投稿日", "配信日"},
	notices:       []string{"無断転載を禁じます", "無断転載禁止", "無断転載を禁止"},
}

var chineseFurniture = furnitureWords{
	asides: []string{"相关文章", "相关阅读", "相关新闻", "相關文章", "相關新聞", "相關閱讀", "延伸阅读", "延伸閱讀",
		"推荐阅读", "推薦閱讀", "热门文章", "熱門文章", "猜你喜欢", "最新文章", "分享到"},
	articleAsides: []string{"评论", "評論", "发表评论", "發表評論", "网友评论"},
	labels:        []string{"阅读全文", "閱讀全文", "查看更多", "更多", "打印", "列印", "分享", "纠错", "返回顶部", "回到顶部", "关闭", "收藏"},
	leadIns:       []string{"相关阅读", "延伸阅读", "延伸閱讀", "推荐阅读"},
	credits:       []string{"图片来源", "圖片來源", "来源:", "來源:", "图:", "圖:", "摄影:", "攝影:"},
	datelines:     []string{"发布时间", "發佈時間", "發布時間", "发布日期", "更新时间", "责任编辑", "責任編輯", "编辑:", "編輯:"},
	notices:       []string{"版权所有", "版權所有", "未经授权", "未經授權"},
}
