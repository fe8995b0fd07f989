"""Spanish reply words (accents optional: they are folded away before matching)."""

from notch_app.reply.lexicon import Lexicon

SPANISH = Lexicon(
    code="es",
    yes="""
        sí si sip sii claro vale ok okay okey bueno perfecto perfecta correcto correcta
        exacto exacta exactamente genial estupendo excelente listo lista afirmativo seguro
        segura dale venga adelante hecho guay chévere bien buenísimo obvio obviamente
        efectivamente totalmente absolutamente ciertamente aprobado apruebo
        confirmado confirmo acepto aceptado conforme sale órale va vamos
    """,
    act="""
        envía envia envíe envíes envíalo enviar envíelo envíalos mándalo manda mande mandes
        mandar haz hazlo hacer hágalo hagas hagamos procede proceder procede continúa
        continuar sigue seguir confirma confirmar aprueba aprobar acepta aceptar publica
        publicar paga pagar págalo reserva reservar ejecuta ejecutar borra borrar bórralo
        compra comprar transfiere transferir agenda agendar programa programar
        manda adelante lanza lanzar sube subir responde responder contesta contestar
        pagues borres publiques confirmes aceptes reserves sigas continúes ejecutes compres
        transfieras respondas contestes agendes programes lances subas procedas apruebes
    """,
    neg="""
        no nop nope nones nel negativo nunca jamás tampoco cancela cancelar
        cancélalo cancelado cancele cancelalo anula anular anúlalo para parar detente
        detén alto basta olvídalo olvida olvidalo déjalo dejalo rechaza rechazar rechazo
        deniega denegar niego ni nah mal equivocado error incorrecto incorrecta después
        despues nada
    """,
    but="""
        pero sino aunque excepto salvo mejor mas
    """,
    change="""
        cambia cambiar cámbialo cambialo cambies cambio modifica modificar corrige corregir
        edita editar pon ponlo poner añade añadir agrega agregar quita quitar elimina
        eliminar saca sacar reemplaza reemplazar sustituye sustituir mueve mover acorta
        acortar alarga alargar reescribe reescribir reformula redacta más menos corto corta
        largo larga formal informal otro otra otros distinto distinta diferente nuevo nueva
        también además incluye incluir copia cc añádele ponle dile di escribe primera
        primero primeras primeros última último segunda segundo
    """,
    hedge="""
        quizás quizá quizas quiza igual espera esperate espérate momento perdón perdon
        disculpa quién repite repetir dudo
        duda supongo mmm hmm
    """,
    filler="""
        lo la los las le les el un una uno unos unas eso esto ese esa este esta estos esas
        por favor porfa porfis gracias muchas ya ahora mismo todo toda todos bien pues
        bueno eh em ehm mm ah oh uh a de del que y e o u en con me te se nos mi tu su
        sus solo solamente únicamente yo tú usted ustedes vosotros nosotros hombre mujer
        tío tía tio tia amigo jefe mesa habitación vuelo
        así asi tal cual es está están son ser estar sea muy mucho vamos oye mira
        pues nomás nomas simplemente directamente ahora ahorita rápido rapido mensaje
        correo email mail factura facturas pago pagos reunión reunion cita reserva pedido
        archivo archivos documento documentos nota texto evento invitación transferencia
        solicitud borrador entrada tarea billete puedes podrías podrias quiero quieres
        puede favor hazme fine cosa creo parece estoy he has ha hemos dicho dije
    """,
    phrases={
        "yes": """
            de acuerdo | por supuesto | desde luego | claro que sí | claro que si |
            me parece bien | me parece perfecto | está bien | esta bien | todo bien |
            todo correcto | muy bien | sin duda | por mí bien |
            por mi bien | perfecto gracias | así está bien | asi esta bien | eso es |
            así es | asi es | está perfecto | esta perfecto | de una | buena idea |
            me vale | venga va | va bien | sí señor | si señor | todo listo | adelante con ello
        """,
        "act": """
            hazlo ya | dale nomás | sigue adelante | hágale | hagale | manos a la obra |
            ándale | andale | échale | echale
        """,
        "neg": """
            ni hablar | de ninguna manera | de ningún modo | de ningun modo | para nada |
            ni de broma | ni loco | ni loca | ni de coña | mejor no | todavía no | todavia no |
            aún no | aun no | ahora no | hoy no | por ahora no | cambié de opinión |
            cambie de opinion | he cambiado de opinión | he cambiado de opinion |
            me lo he pensado mejor | déjalo estar | dejalo estar | no gracias |
            olvídate | olvidate | así no | asi no | en absoluto | que no
        """,
        "but": """
            en vez de | en lugar de | a menos que | excepto que | mejor que | lo que sí |
            sí pero | si pero | vale pero | ok pero | bueno pero | más bien | mas bien
        """,
        "change": """
            a las | para el | para la | para mañana | a él | a ella | a ellos | a mí |
            qué tal si | que tal si | y si
        """,
        "hedge": """
            no sé | no se | no estoy seguro | no estoy segura | no lo sé | no lo se |
            ni idea | a lo mejor | tal vez | puede ser | puede que | un momento | un segundo |
            un minuto | espera un momento | no hay problema | no pasa nada | sin problema |
            por qué no | por que no | cómo dices | como dices | qué dices | que dices |
            lo que sea | no está mal | no esta mal | cómo no | como no | me da igual | da igual | como quieras |
            tú decides | tu decides | lo pienso | déjame pensar | dejame pensar | otra vez |
            si quieres | si tú quieres | si tu quieres | si te parece | si usted quiere |
            creo que sí | creo que si | supongo que sí | supongo que si
        """,
    },
    rewrites={
        "porfa": "por favor",
        "xfa": "por favor",
        "xfavor": "por favor",
        "pf": "por favor",
        "q": "que",
        "k": "que",
        "ta": "esta",
        "tb": "también",
        "tmb": "también",
        "dl": "dale",
        "vl": "vale",
    },
    clitics="lo la los las le les me te nos selo sela selos selas melo mela telo tela noslo se",
    recipient_clitics="me nos melo mela melos melas noslo nosla noslos noslas",
)
