// The offline analyser's lexicons, written for this product (not copied from a published lexicon):
// words and phrases customers use in support conversations, each with a weight (1 plain, 2 strong).
// English entries are matched on wink-nlp's lemmas and on the lower-cased text (phrases); Malay on
// lower-cased words; Chinese on substrings (there are no spaces to split on). How they were built
// and how well they do: tests/ai/README.md (the evaluation, `npm run eval:ai`).
//
// To add a word: put it under the emotion or class it signals, run `npm run eval:ai`, and keep it
// only if the train/dev figures improve (never tune on the held-out set).

export const EMOTIONS = ["anger", "fear", "happy", "love", "sad", "surprise", "curious"] as const;
export type Emotion = (typeof EMOTIONS)[number];

export const CLASSES = ["complaint", "billing", "technical", "delivery", "refund", "account", "inquiry", "praise"] as const;
export type Classification = (typeof CLASSES)[number];

export const PERSONALITIES = ["driver", "analytical", "amiable", "expressive"] as const;
export type Personality = (typeof PERSONALITIES)[number];

type Lexicon<K extends string> = Record<K, Record<string, number>>;

const w = (strong: string, plain: string): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const s of plain.split(",")) if (s.trim()) out[s.trim()] = 1;
  for (const s of strong.split(",")) if (s.trim()) out[s.trim()] = 2;
  return out;
};

export const EMOTION_EN: Lexicon<Emotion> = {
  anger: w(
    "furious,outrageous,ridiculous,unacceptable,disgusting,pathetic,useless,scam,rip off,ripped off,fed up,sick of,worst,terrible,horrible,livid,incompetent,joke,waste of time,i want my money back,rubbish,nonsense,angry,annoyed,fraud,cheat,cheated,liar,lie,liars,are you kidding,kidding me,what kind of service,enough,the hell,annoying,i'm done,sick of this,infuriating,infuriated,sarcastic,condescending,disgraceful,false advertising,sort it out,just pay me,for no reason,how many more times,ruined,terribly,copy - paste",
    "annoy,frustrate,frustrated,frustrating,upset,mad,awful,bad,poor,still,third time,fix it,stop,broke,not working,doesn't work,nothing works,can't work,why do i have to,promised,second time,never,nobody,no one,ignored,ignore,hour,wait,waiting,complain,complaint,demand,seriously,lousy,hate,stupid,unprofessional,rude,slow,broken,wrong,crushed,refused,keeps,ten times,every time,excuse,lying,unresponsive,faulty,failed,in a row,i have tried",
  ),
  fear: w(
    "scared,afraid,terrified,worried,panic,hacked,stolen,fraudulent,unauthorized,unauthorised,someone else,nervous,anxious,frightened,explode,smoking,encrypted,cut me off,cut off,disconnected,credit score,stealing,steal,virus,urgently,never placed,protect,get into my account,someone trying",
    "worry,concern,concerned,risk,unsafe,safe,security,suspicious,strange,lose,lost,leak,danger,dangerous,urgent,emergency,threat,fear,unsure,not sure if,fake,affect,stranger,medication",
  ),
  happy: w(
    "thank you so much,thanks a lot,great,excellent,awesome,perfect,amazing,wonderful,fantastic,happy,glad,delighted,pleased,brilliant,well done,appreciate,grateful,excited,top notch,above and beyond,easy to use,cheers,kudos,thank you,:)",
    "thanks,thank,good,nice,works now,working now,solved,resolved,fixed,smooth,quick,fast,helpful,satisfied,cool,ok now,fine now,worked,patience,courteous,polite",
  ),
  love: w(
    "love,adore,loving,lovely,best service,best company,favourite,favorite,recommend,recommended,loyal,heart,obsessed,the best,loves,loved",
    "always,years,family,friend,kind,sweet,caring,treasure,beautiful,proud,best",
  ),
  sad: w(
    "sad,heartbroken,devastated,depressed,unhappy,crying,cry,miserable,hopeless,let down,gave up,give up,used to love,too late,disheartening,upsetting,gutted,heartbreaking,in tears,tears,lost all hope,given up,expected better,feel awful,all my savings,out of pocket,unfair,exhausted,funeral,disappointed,disappointing,barely,do not know what",
    "sorry,unfortunately,miss,missed,alone,lonely,hurt,regret,pity,passed away,sick,ill,hospital,lost my job,can't afford,cannot afford,struggling,tired,sadly,hard,gone,painful,feel,feels,felt",
  ),
  surprise: w(
    "surprised,shocked,shocking,unexpected,unexpectedly,can't believe,cannot believe,didn't expect,did not expect,wow,suddenly,out of nowhere,no idea why,stunned,unbelievable,astonished,turned itself on,by itself,overnight,where did that come from,how did that happen,never requested,never asked for,did not ask for,since when,i thought,out of the blue,baffled,is that normal,surprise,pleasant surprise,do not expect,someone else 's",
    "strange,weird,odd,sudden,just noticed,noticed,why is there,how come,what happened,somehow,random,mysterious,empty,impressed,oh,even though",
  ),
  curious: w(
    "how do i,how can i,how to,is it possible,can i,could you tell,could you explain,i wonder,wondering,curious,what is,what are,do you have,do you offer,is there,are there",
    "how,what,which,when,where,who,info,information,details,explain,question,ask,know,learn,option,options,plan,plans,feature,available,possible,tell me",
  ),
};

export const EMOTION_MS: Lexicon<Emotion> = {
  anger: w(
    "marah,geram,teruk,bodoh,tipu,penipu,bengang,menyampah,tak guna,sampah,biadap,tak setuju,kurang ajar",
    "lambat,lagi,masih,tunggu,tak puas hati,rosak,salah,dah,mana duit",
  ),
  fear: w("takut,risau,bimbang,digodam,dicuri,cemas", "bahaya,curiga,hilang,selamat"),
  happy: w("terima kasih banyak,gembira,bagus,hebat,syabas,puas hati", "terima kasih,baik,cepat,selesai,berjaya,ok"),
  love: w("sayang,suka sangat,terbaik,cinta", "suka,setia,cadang"),
  sad: w("sedih,kecewa sangat,hancur,menangis,kecewa", "malang,sakit,rindu,susah"),
  surprise: w("terkejut,tak sangka,tiba-tiba,pelik", "aneh,kenapa ada"),
  curious: w("bagaimana,macam mana,boleh saya,adakah,apakah", "apa,bila,berapa,mana,info,maklumat,tanya,nak tahu"),
};

export const EMOTION_ZH: Lexicon<Emotion> = {
  anger: w("生气,愤怒,气死,垃圾,骗子,太差,受够,不可接受,离谱,烦死了,太过分,过分,不负责任,到底,重复扣款", "投诉,还没,又,等了,慢,差,烂,为什么"),
  fear: w("害怕,担心,被盗,被黑,诈骗,不安,好像被", "风险,安全,可疑,丢失"),
  happy: w("非常感谢,太好了,开心,高兴,满意,完美", "谢谢,感谢,好的,不错,解决了,快"),
  love: w("喜欢,爱,最好,推荐", "支持,忠实"),
  sad: w("难过,伤心,失落,哭,失望", "可惜,遗憾,生病"),
  surprise: w("惊讶,没想到,突然,竟然", "奇怪,怎么会"),
  curious: w("请问,如何,怎么,是否,能不能,可以吗", "什么,哪里,多少,吗,信息,了解"),
};

export const CLASS_EN: Lexicon<Classification> = {
  complaint: w(
    "complain,complaint,unacceptable,terrible service,worst,rude,manager,supervisor,escalate,never again,disgusting,how many more times,false advertising,escalated,formal complaint",
    "bad service,poor service,ignored,no reply,no response,nobody,still waiting,unprofessional,disappointed,advertised,dangerous,treated",
  ),
  billing: w(
    "invoice,charged,charge,overcharged,double charged,bill,billing,payment,paid,receipt,subscription fee,credit card,autopay,direct debit",
    "price,cost,fee,fees,amount,pay,statement,tax,plan,renewal,discount,coupon,promo,card,credit",
  ),
  technical: w(
    "error,bug,crash,crashes,crashed,not working,doesn't work,does not work,won't load,cannot login,can't login,can't log in,login,password reset,bluetooth,firmware,internet,server,software,touchscreen,smart tv,modem,router,printer,laptop,computer,charger",
    "broken,loading,slow,update,install,connection,connect,wifi,screen,page,freeze,frozen,device,phone,browser,sync,reset,tv,battery,power bank,headset,kiosk,machine,game,maintenance,camera,layout,settings,app,website,dashboard,export,csv",
  ),
  delivery: w(
    "delivery,deliver,delivered,parcel,package,shipping,shipped,courier,tracking,tracking number,order hasn't arrived,not arrived,not received,shipment,sorting centre,packaging",
    "order,arrive,arrived,ship,address,late,delayed,dispatch,stock,warehouse,pickup,driver,groceries,box",
  ),
  refund: w(
    "refund,refunded,money back,cancel,cancellation,return,returned,chargeback,reimburse,exchange,i want my money",
    "cancelled,canceled,terminate,unsubscribe,send back,replacement,replace,voucher,vouchers,store credit",
  ),
  account: w(
    "account,password,username,sign up,register,registration,verify,verification,profile,locked out,email address,phone number,two-factor,otp,sign in,log in,member id,membership,authentication,2fa,loyalty points,two - factor",
    "login,access,delete my account,close my account,change my,update my,personal details,points,welcome email,locked",
  ),
  inquiry: w(
    "do you have,do you offer,is it possible,how much,how long,what is,what are,can i,could you tell,i would like to know,information,opening hours,available,do you sell,quick question,are there any,is there",
    "how,when,where,which,question,interested,details,option,branch,hours,price list,catalogue,warranty,parking,wheelchair,events,cater,custom orders",
  ),
  praise: w(
    "thank you so much,great job,well done,excellent service,amazing,love,best,fantastic,wonderful,compliment,recommend,above and beyond,grateful,top notch,thank you for,nice work,impressed",
    "thanks,thank,helpful,quick,appreciate,happy,pleased,great,kind,patience,easy to use,courteous,polite",
  ),
};

export const CLASS_MS: Lexicon<Classification> = {
  complaint: w("aduan,mengadu,teruk,tak puas hati,pengurus", "lambat,tiada jawapan"),
  billing: w("bil,caj,bayaran,invois,resit,dicaj", "harga,kos,yuran,bayar"),
  technical: w("ralat,rosak,tak boleh log masuk,tidak berfungsi,aplikasi,laman web,internet,putus,talian", "lambat,kemaskini,sambungan,skrin,wifi"),
  delivery: w("penghantaran,bungkusan,parcel,kurier,nombor penjejakan,belum sampai,tak sampai,dihantar", "pesanan,hantar,alamat,lewat,sampai"),
  refund: w("bayaran balik,refund,batal,pembatalan,pulangkan,duit balik,pemulangan,pemulangan wang,dibatalkan", "tukar,ganti"),
  account: w("akaun,kata laluan,daftar,pengesahan,profil", "log masuk,emel,nombor telefon"),
  inquiry: w("berapa,bagaimana,macam mana,adakah,boleh saya,nak tanya", "bila,mana,maklumat,waktu operasi"),
  praise: w("terima kasih banyak,terbaik,syabas,hebat", "terima kasih,bagus,cepat"),
};

export const CLASS_ZH: Lexicon<Classification> = {
  complaint: w("投诉,太差,经理,不满", "没人回复,服务差"),
  billing: w("账单,扣款,收费,发票,付款,多扣", "价格,费用,支付"),
  technical: w("错误,崩溃,无法登录,打不开,故障,闪退", "更新,连接,网页,应用"),
  delivery: w("快递,物流,包裹,发货,配送,没收到,还没到,寄到", "订单,地址,延迟"),
  refund: w("退款,退货,取消,退钱", "换货,更换,到账"),
  account: w("账号,账户,密码,注册,验证", "登录,手机号,邮箱"),
  inquiry: w("请问,多少钱,如何,怎么,是否", "什么时候,哪里,信息"),
  praise: w("非常感谢,太好了,满意,推荐", "谢谢,感谢,不错"),
};

/**
 * The people and the service itself: a message about them is a complaint or praise, by its tone
 * (analyse.ts), not a topic of its own ("the staff were rude", "the staff were lovely").
 */
export const SERVICE_EN = w(
  "customer service,customer care,call centre,call center,front desk,sales rep,sales assistant,shop assistant",
  "staff,agent,team,service,support,counter,technician,employee,cashier,assistant,representative,branch,outlet,store",
);
export const SERVICE_MS = w("khidmat pelanggan", "staf,pekerja,kakitangan,kaunter,layanan,perkhidmatan,servis,cawangan,kedai");
export const SERVICE_ZH = w("客服", "服务,员工,店员,态度");

/** Words that turn the next few words around ("not happy"). */
export const NEGATIONS = new Set([
  "not",
  "no",
  "never",
  "n't",
  "dont",
  "don't",
  "didn't",
  "doesn't",
  "isn't",
  "wasn't",
  "cannot",
  "can't",
  "won't",
  "without",
  "tak",
  "tidak",
  "bukan",
  "不",
  "没",
]);
/** Words that make the next one count more ("very angry"). */
export const INTENSIFIERS = new Set(["very", "really", "so", "extremely", "totally", "absolutely", "completely", "super", "sangat", "amat", "非常", "太"]);
