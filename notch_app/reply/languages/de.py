"""German reply words (umlauts optional: they are folded away before matching)."""

from notch_app.reply.lexicon import Lexicon

GERMAN = Lexicon(
    code="de",
    yes="""
        ja jawohl jap jep jo joa japp jup jupp klar sicher sicherlich ok okay okey oki genau
        richtig passt gut super perfekt prima toll einverstanden gerne gern natürlich
        selbstverständlich absolut bestätigt korrekt freilich logo klaro
        definitiv unbedingt bitteschön jaja exakt stimmt geil cool top
    """,
    act="""
        los mach machs mache machen schick schicke schicken schickt sende senden sendet
        abschicken absenden verschicken verschick versenden versende bestätige bestätigen
        freigeben weiter ausführen führ zahlen zahl bezahlen bezahl überweisen überweis
        buchen buch buche veröffentlichen poste posten löschen lösch lösche tu tue tun
        fortfahren weitermachen starten start abschließen erledigen reservieren bestellen
        antworten beantworten genehmige genehmigen akzeptiere akzeptieren
    """,
    neg="""
        nein nee ne nö nope nicht nichts kein keine keinen keiner keinem nie niemals
        abbrechen abbruch brich stopp stop stoppen halt aufhören hör storniere stornieren
        storno vergiss vergessen lass lassen ablehnen abgelehnt lehne verwerfen verwirf
        später spater falsch fehler negativ widerrufen zurück verweigern
    """,
    but="""
        aber sondern jedoch allerdings stattdessen statt anstatt anstelle außer ausser
        lieber wenn falls sofern
    """,
    change="""
        ändere ändern änder ändert änderung korrigiere korrigieren korrigier bearbeite
        bearbeiten kürzer länger kürze kürzen verlängere kurz lang füge hinzufügen hinzu
        ergänze ergänzen entferne entfernen nimm streich streiche ersetze ersetzen
        tausche verschiebe verschieben umformulieren formuliere formeller förmlicher
        lockerer freundlicher höflicher anders andere anderen anderer anderes neu neue
        neuen mehr weniger auch zusätzlich cc schreib schreibe sag sage erwähne setz setze
        an um am
    """,
    hedge="""
        vielleicht eventuell evtl womöglich vermutlich wahrscheinlich moment warte warten
        wart sekunde wie was wer warum wieso weshalb wann wo hä häh nochmal
        wiederholen wiederhole unsicher naja
    """,
    filler="""
        es das den die der dem des ein eine einen einem dies dieses diese diesen bitte
        danke dankeschön vielen dank jetzt sofort gleich einfach mal ruhig so ist sind war
        geht gehts alles ab ich wir du sie ihr mir mich uns dir dich euch und oder auch
        ähm äh äääh hm hmm mm öh na schon doch dann also eben chef mann leute
        sehr raus damit weg direkt rüber nun mail e-mail email nachricht
        nachrichten rechnung rechnungen zahlung termin termine datei dateien dokument
        buchung bestellung reservierung entwurf notiz text überweisung anfrage einladung
        eintrag auftrag ding sache sachen kannst können könntest würdest willst will
        möchte soll sollst wird werden habe hab hast bin mein meine deine ihre unsere
        mit für von zu in im auf bei nach aus ganz gerade endlich einmal wirklich
        ordentlich dafür daran dran drauf tisch zimmer flug
    """,
    phrases={
        "filler": "lass uns | so wie es ist | wie es ist | wie besprochen | wie gesagt",
        "yes": """
            alles klar | in ordnung | na klar | na sicher | geht klar | geht in ordnung |
            passt schon | das passt | sehr gut | ganz genau | auf jeden fall | jawohl chef |
            mach ich | gerne doch | ja gerne | ja bitte | klingt gut | hört sich gut an |
            sieht gut aus | passt so | ist gut | ist ok | ist okay | bin einverstanden |
            von mir aus gerne | alles gut | so ist es | genau so | gut so | geht los
        """,
        "act": """
            leg los | nur zu | mach schon | mach das | mach es | ab damit | raus damit |
            ab die post | schick es ab | schick ab | mach weiter |
            tu es | tu das | gib gas | gib frei | gib es frei | go
        """,
        "neg": """
            auf keinen fall | keinesfalls | noch nicht | jetzt nicht | nicht jetzt |
            heute nicht | lieber nicht | besser nicht | bloß nicht | bloss nicht |
            lass es | lass das | lass mal | lass es lieber | lieber lassen | lass es bleiben | lass gut sein | vergiss es | vergiss das |
            ich habe es mir anders überlegt | ich hab es mir anders überlegt |
            hab mir das anders überlegt | habe es mir anders überlegt | anders überlegt |
            kommt nicht in frage | kommt nicht infrage | nein danke | auf gar keinen fall |
            ganz sicher nicht | sicher nicht | gar nicht | mach das nicht | abbrechen bitte
        """,
        "but": """
            ja aber | okay aber | ok aber | gut aber | nur wenn | es sei denn | an stelle |
            statt dessen | mir wäre lieber | wäre mir lieber
        """,
        "change": """
            an den | an die | an mich | an ihn | an sie | um uhr | zu mir | noch was |
            es mir | sie mir | ihn mir | es uns | schick mir | schicke mir | sende mir |
            schick uns | sende uns | gib mir | mail mir | leite mir |
            wie wäre es mit | wie wär's mit | wie wärs mit | was ist mit
        """,
        "hedge": """
            weiß nicht | weiss nicht | ich weiß nicht | ich weiss nicht | keine ahnung |
            nicht sicher | ich bin nicht sicher | bin mir nicht sicher | bin nicht sicher |
            weiß ich nicht | weiss ich nicht | kein problem | kein ding | warum nicht |
            wieso nicht | nicht schlecht | einen moment | moment mal | warte mal |
            eine sekunde | kurz warten | wie bitte | was bitte | noch einmal | was meinst du |
            was hast du gesagt | wenn du meinst | wenn du willst | wie du willst |
            ist mir egal | egal | mal sehen | mal schauen | ich denke schon | denke schon |
            schon okay | schon ok | ich glaube schon | glaube schon
        """,
    },
    rewrites={
        "machs": "mach es",
        "mach's": "mach es",
        "schicks": "schick es",
        "schick's": "schick es",
        "gibts": "gibt es",
        "gehts": "geht es",
        "geht's": "geht es",
        "passt's": "passt es",
        "wär's": "wäre es",
        "wärs": "wäre es",
        "hab's": "habe es",
        "lass's": "lass es",
        "lasses": "lass es",
        "nen": "einen",
        "n": "ein",
    },
)
