"""French reply words (accents optional: they are folded away before matching)."""

from notch_app.reply.lexicon import Lexicon

FRENCH = Lexicon(
    code="fr",
    yes="""
        oui ouais ouaip ouep oue ui si ok okay okey d'accord dac dacc daccord bien parfait
        parfaitement exactement exact absolument évidemment evidemment certainement
        carrément volontiers super génial genial excellent impeccable nickel entendu
        correct juste affirmatif bon tb top cool banco valide validé approuvé confirmé
        accepté assurément effectivement naturellement ouiii bravo formidable
    """,
    act="""
        envoie envoies envoyer envoyez envoyons envoi vas allez allons fais faire
        faites fait lance lancer lancez valide valider validez confirme confirmer confirmez
        approuve approuver approuvez accepte accepter acceptez continue continuer continuez
        poste poster publie publier publiez paie payer paye payez réserve réserver
        réservez supprime supprimer supprimez exécute exécuter exécutez transmets
        transmettre vire virer commande commander programme programmer expédie expédier
        go procède procéder procédez réponds répondre aller
    """,
    neg="""
        non nan nope ne n' pas jamais aucun aucune rien annule annuler annulez annulé
        arrête arrêter arrêtez stop stoppe halte refuse refuser refusez refusé laisse
        laissez oublie oublier oubliez tomber négatif niet faux erreur tard
        attendons ni
    """,
    but="""
        mais plutôt plutot sauf excepté cependant pourtant toutefois sinon seulement
        uniquement autrement
    """,
    change="""
        change changer changez changes modifie modifier modifiez corrige corriger corrigez
        remplace remplacer remplacez ajoute ajouter ajoutez enlève enlever enlevez retire
        retirer retirez raccourcis raccourcir raccourcissez rallonge rallonger allonge
        reformule reformuler réécris réécrire déplace déplacer décale décaler mets mettre
        mettez court courte courts long longue longs formel formelle poli polie autre
        autres différent différente nouveau nouvelle nouvel aussi également dis dites
        écris écrivez précise ajuste cc moins
    """,
    hedge="""
        peut-être quoi pardon comment hein attends attendez attendre
        seconde instant répète répéter répétez redis encore hésite doute pourquoi qui
        quand où probablement possible éventuellement bof mouais
    """,
    filler="""
        le la les l' un une des du de d' ce ça ca c' cela ceci celui celle est c'est
        tout toute tous toutes merci beaucoup s'il te vous plaît plait stp svp maintenant
        alors bon ben bah euh heu hum hmm ah oh eh et donc ensuite puis je
        j' moi toi tu nous on il elle en y à a au aux pour par avec sur dans chez mon ma
        mes ton ta tes son sa ses notre votre très tres bien vraiment simplement
        message messages mail mails email e-mail courriel facture factures paiement
        paiements réunion reunion rendez-vous fichier fichiers document documents
        réservation commande brouillon note texte invitation virement demande tâche
        billet événement chose truc peux pouvez veux voulez voudrais aimerais faut
        ai as avons avez suis sommes es êtes sera vais va ici là directement déjà vite
        rapidement chef mec madame monsieur ami amie comme que qu' m' t' s' se me te lui
        leur leurs ainsi tel quel telle quelle plus table chambre vol
    """,
    phrases={
        "filler": "tout de suite | de suite",
        "yes": """
            d accord | bien sûr | bien sur | tout à fait | tout a fait | c'est bon |
            c'est parfait | c'est ok | c'est correct | c'est juste | c'est ça | c'est ca |
            ça marche | ca marche | ça me va | ca me va | ça roule | ca roule | ça va |
            ca va | très bien | tres bien | avec plaisir | sans doute |
            bien entendu | je suis d'accord | je confirme | je valide | c'est bien |
            oui oui | ça me convient | ca me convient | ça convient | parfait merci |
            ok pour moi | bon pour moi | d'acc | c'est tout bon | c'est validé | c'est parti |
            on y va | allez hop | et voilà | voilà | voila
        """,
        "act": "vas-y | vas y | allez-y | allez y | fonce | foncez | lance-toi | go go",
        "neg": """
            pas question | hors de question | laisse tomber | laissez tomber | pas encore |
            pas maintenant | pas aujourd'hui | surtout pas | certainement pas | absolument pas |
            pas du tout | non merci | j'ai changé d'avis | j'ai change d'avis | changé d'avis |
            change d'avis | je préfère pas | je prefere pas | je préfère ne pas | plus tard |
            mieux vaut pas | vaut mieux pas | ne fais pas | ne fais rien | on oublie |
            oublie ça | oublie ca | ni rien | je ne crois pas | je crois pas | je ne pense pas |
            je pense pas
        """,
        "but": """
            au lieu | au lieu de | à la place | a la place | par contre | oui mais | ok mais |
            d'accord mais | bon mais | quand même | quand meme | à condition | a condition |
            sauf si | seulement si | je préfère | je prefere | je préférerais | je prefererais
        """,
        "change": """
            plus court | plus courte | plus long | plus longue | plus formel | plus poli |
            plus simple | à moi | a moi | à lui | a lui | à elle | a elle | à eux | a eux |
            pour demain | à la place de | et si | le moi | la moi | les moi | le nous |
            la nous | les nous | envoie moi | envoyez moi | envoie nous | envoyez nous |
            transfère moi | transmets moi
        """,
        "hedge": """
            je ne sais pas | je sais pas | sais pas | chais pas | j'sais pas | ne sais pas |
            pas sûr | pas sur | pas sûre | pas sure | je ne suis pas sûr | je suis pas sûr |
            pas certain | peut être | peut-être | aucune idée | pas de problème |
            pas de probleme | pas de souci | pas de soucis | aucun problème | aucun probleme |
            pourquoi pas | pas mal | pas mal du tout | une seconde | un instant | un moment |
            une minute | attends voir | tu dis | vous dites | qu'est-ce que | comme tu veux |
            comme vous voulez | si tu veux | si vous voulez | si tu le dis | je crois |
            je pense | je suppose | ça dépend | ca depend | c'est toi qui vois | ça m'est égal |
            ca m'est egal | n'importe | on verra | laisse moi réfléchir |
            laissez moi réfléchir | réfléchir | je pense que oui |
            je crois que oui
        """,
    },
    rewrites={
        "stp": "s'il te plaît",
        "svp": "s'il vous plaît",
        "jsp": "je sais pas",
        "chui": "je suis",
        "chuis": "je suis",
        "ouai": "ouais",
        "dacc": "d'accord",
        "dac": "d'accord",
        "daccord": "d'accord",
        "oki": "ok",
        "okok": "ok",
    },
    elisions="l n d j c m t s",
)
