"""English reply words."""

from notch_app.reply.lexicon import Lexicon

ENGLISH = Lexicon(
    code="en",
    yes="""
        yes yeah yea yeh ya yah yep yup yas aye uh-huh mhm mm-hmm sure ok okay okey k kk
        alright allright fine good great perfect excellent awesome cool nice lovely brilliant
        absolutely definitely certainly surely totally exactly indeed affirmative correct
        right agreed agree approved approve accepted accept confirmed yessir roger lgtm
        ack affirm gladly willingly obviously naturally positive
    """,
    act="""
        send sent do go proceed submit run execute book pay post publish confirm continue
        ship deliver transfer launch schedule delete accept approve greenlight
        finish complete mail email forward reply buy order reserve
        sending doing going paying booking posting submitting deleting proceeding
    """,
    neg="""
        no nope nah naw nay not never negative cancel cancelled canceled
        cancelling stop stopped abort halt deny denied decline declined reject rejected refuse
        refused nix scrap forget drop kill discard dismiss skip later nevermind veto wrong
        mistake dont don't doesnt didnt shouldnt wouldnt cant couldnt wont isnt arent
        wasnt neither nor undo revoke withdraw quit block
    """,
    but="""
        but however though although except instead rather unless if only otherwise whereas
    """,
    change="""
        change changed changes edit modify update fix replace swap switch make add remove
        shorter longer shorten lengthen rephrase reword rewrite rename move reschedule
        postpone use put set say tell mention include cc bcc also more less formal
        informal casual polite politer friendlier nicer different another other new long short
        spell adjust tweak trim cut expand attach detach first last second third
    """,
    hedge="""
        maybe perhaps possibly probably guess suppose dunno idk unsure wait hold hang pardon
        sorry what huh eh whatever who why how when where which repeat again confused
        hesitant kinda sorta might
    """,
    filler="""
        the a an it its it's this that these those them they there here then now just
        please pls plz thanks thank thx ty cheers you your yours me my mine we us our i i'm
        im is are was be been being am will would can could should shall may does did
        so well oh ah uh um umm uhm er erm hmm hm mm ahh ooh and or with for of on in at by
        as to from all everything ahead away along really very much quite pretty
        completely fully sir ma'am madam man dude mate buddy boss guys folks
        let let's lets sounds sound looks look seems seem thing things stuff one ones
        course means worries love like want wanted happy think ready thats
        that's what's email emails e-mail mail message messages text texts note reply
        invoice invoices payment payments meeting meetings event events invite invitation
        file files document documents draft post order booking reservation request transfer
        money form call appointment ticket task entry item items as-is yourself table room
        flight
        already immediately asap quickly straight both whole entire
        have has had get got need needs needed mean meant said told works work
        up over out done finished anyway anyways
        honestly actually basically literally kindly s ll ve re d m
        dokie dokey happening happen going
    """,
    phrases={
        "yes": """
            of course | by all means | sounds good | sounds great | sounds fine | looks good |
            looks great | looks fine | looks right | all good | all set | makes sense |
            make it so | works for me | that works | fine by me | fine with me |
            good to me | fine to me | ok to me | okay to me | great to me | good to go |
            right on | you bet | for sure | i agree | i approve | go for it | go on |
            let's go | lets go | let us go | ship it | why yes | yes indeed | very well |
            that's fine | thats fine | that is fine | that's right | that is right |
            thumbs up | you got it | go right ahead | looks good to me | sounds good to me |
            looks fine to me | sounds fine to me | looks great to me | sounds great to me |
            seems fine to me | seems good to me | good with me | okay with me | ok with me |
            all right | right then | right ahead
        """,
        "act": """
            go ahead | hit send | pull the trigger | fire away | green light | send away |
            knock yourself out | carry on | make it happen | get it done | do the thing | please do
        """,
        "neg": """
            never mind | nevermind | changed my mind | change my mind | hold off | hold it |
            not yet | not now | no way | no thanks | no thank you | forget it | forget about it |
            scratch that | call it off | leave it | don't bother | do not bother | let it go |
            no can do | not today | not at all | absolutely not | of course not |
            i don't think so | i do not think so | i dont think so | don't think so |
            dont think so | i'd rather not | i would rather not | rather not | better not |
            thumbs down | hell no | heck no | stop it | leave it be | let's not | lets not |
            let us not
        """,
        "but": "yes but | yeah but | ok but | okay but | on second thought | on second thoughts",
        "change": """
            to me | to him | to her | to them | to us | to you | make it | can you change |
            send me | forward me | email me | mail me | text me | send us | give me |
            could you change | the other | how about | what about
        """,
        "hedge": """
            i don't know | i do not know | i dont know | don't know | dont know | do not know |
            not sure | i'm not sure | im not sure | i am not sure | no idea | not really sure |
            hold on | hang on | one sec | one second | one moment | just a moment | just a sec |
            just a second | wait a second | wait a minute | wait a moment | give me a second |
            give me a minute | let me think | let me see | say again | say that again |
            come again | what was that | what did you say | are you sure | i think so |
            no problem | no worries | not a problem | no doubt | why not | not bad |
            can't wait | cant wait | can not wait | i'm not against it | not against it |
            i suppose so | i guess so | if you say so | if you want | if you like |
            you decide | up to you | your call | excuse me | not bad at all
        """,
        "filler": """
            thank you | thank you very much | thanks a lot | thanks so much | if you would |
            if you could | if you can | if you please | would you | could you | can you |
            will you | right away | right now | as is | for me
        """,
    },
    rewrites={
        "don't": "do not",
        "dont": "do not",
        "doesn't": "does not",
        "doesnt": "does not",
        "didn't": "did not",
        "didnt": "did not",
        "can't": "can not",
        "cant": "can not",
        "cannot": "can not",
        "won't": "will not",
        "wont": "will not",
        "shouldn't": "should not",
        "shouldnt": "should not",
        "wouldn't": "would not",
        "wouldnt": "would not",
        "couldn't": "could not",
        "couldnt": "could not",
        "isn't": "is not",
        "isnt": "is not",
        "aren't": "are not",
        "arent": "are not",
        "wasn't": "was not",
        "wasnt": "was not",
        "haven't": "have not",
        "havent": "have not",
        "hasn't": "has not",
        "ain't": "is not",
        "aint": "is not",
        "let's": "let us",
        "lets": "let us",
        "it's": "it is",
        "that's": "that is",
        "thats": "that is",
        "i'm": "i am",
        "im": "i am",
        "i'd": "i would",
        "you're": "you are",
        "what's": "what is",
        "gimme": "give me",
        "lemme": "let me",
        "gonna": "going to",
        "wanna": "want to",
        "ya'll": "you all",
        "y'all": "you all",
        "okie": "okay",
        "okey-dokey": "okay",
        "okie-dokie": "okay",
        "yeap": "yep",
        "yess": "yes",
        "nooope": "nope",
        "uhhuh": "uh-huh",
        "mhmm": "mhm",
    },
)
