// Package textgen generates the long responses the benchmarks stream:
// English, Chinese and code, cut into deltas of 1 to 4 tokens, from seeded
// generators so that every run streams the same bytes. The text is drawn
// word by word (or character by character) from Zipf-distributed
// vocabularies, so it repeats as much as prose does at the word level but
// less at the phrase level, which makes compression look a little worse
// than on real model output, for every scheme alike.
package textgen

import (
	"math/rand/v2"
	"strings"
)

// Kind is a kind of text.
type Kind string

// The kinds of text.
const (
	English Kind = "english"
	Chinese Kind = "chinese"
	Code    Kind = "code"
)

// Kinds are all the kinds, in order.
var Kinds = []Kind{English, Chinese, Code}

const englishWords = `the of and to a in is that for it as was with be by on not he this are or his from at which but have an they you were her all she there would their we him been has when who will more no if out so said what up its about into than them can only other new some could time these two may then do first any my now such like our over man me even most made after also did many before must through back years where much your way well down should because each just those people how too little state good very make world still own see men work long get here between both life being under never day same another know while last might us great old year off come since against go came right used take three states himself few house use during without again place american around however home small found thought went say part once general high upon school every does got united left number course war until always away something fact though water less public put think almost hand enough far took head yet government system better set told nothing night end why called didnt eyes find going look asked later knew point next program city business give group toward young days let room president side social given present several order national possible rather second face per among form important often things looked early white case john become large big need four within felt along children saw best church ever least power development thing light seemed family interest want members mind country area others done turned although open god service certain kind problem began different door thus help sense means whole matter perhaps itself york times law human line above name example action company hands local show whether five history gave today either act feet across taken past quite anything seen having death week experience shall body word really field information`

const chineseChars = `的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处队南给色光门即保治北造百规热领七海口东导器压志世金增争济阶油思术极交受联什认六共权收证改清己美再采转更单风切打白教速花带安场身车例真务具万每目至达走积示议声报斗完类八离华名确才科张信马节话米整空元况今集温传土许步群广石记需段研界拉林律叫且究观越织装影算低持音众书布复容儿须际商非验连断深难近矿千周委素技备半办青省列习响约支般史感劳便团往酸历市克何除消构府称太准精值号率族维划选标写存候毛亲快效斯院查江型眼王按格养易置派层片始却专状育厂京识适属圆包火住调满县局照参红细引听该铁价严`

const codeWords = `func return if err != nil { } ( ) := , . for range var type struct int string byte []byte error len append make map bool true false else switch case default break continue package import fmt ctx context req resp buf n i j k b s v ok x y w r data out in key value name size offset count index result value errors New Errorf Sprintf Println strings bytes io Reader Writer Read Write Close http Request Response Header Get Set`

// Response returns a response of n deltas of the given kind, each 1 to 4
// tokens long (a token is a word or a character, with its space).
func Response(kind Kind, n int, seed uint64) []string { return generate(kind, n, 4, seed) }

// Tokens returns n tokens of the given kind: a response of one token per
// delta.
func Tokens(kind Kind, n int, seed uint64) []string { return generate(kind, n, 1, seed) }

func generate(kind Kind, n, perDelta int, seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, uint64(len(kind))))
	var vocab []string
	switch kind {
	case English:
		vocab = strings.Fields(englishWords)
	case Chinese:
		for _, r := range chineseChars {
			vocab = append(vocab, string(r))
		}
	case Code:
		vocab = strings.Fields(codeWords)
	}
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
	deltas := make([]string, 0, n)
	for len(deltas) < n {
		var sb strings.Builder
		for range 1 + rng.IntN(perDelta) {
			sb.WriteString(token(kind, vocab[zipf.Uint64()], rng))
		}
		deltas = append(deltas, sb.String())
	}
	return deltas
}

// token spells one token: a word with its space, a character, and now and
// then punctuation or a line break.
func token(kind Kind, w string, rng *rand.Rand) string {
	switch kind {
	case Chinese:
		switch rng.IntN(20) {
		case 0:
			return w + "，"
		case 1:
			return w + "。"
		}
		return w
	case Code:
		switch rng.IntN(12) {
		case 0:
			return w + "\n\t"
		case 1:
			return w + "\n"
		}
		return " " + w
	}
	switch rng.IntN(16) {
	case 0:
		return " " + w + "."
	case 1:
		return " " + w + ","
	case 2:
		return "\n\n" + strings.ToUpper(w[:1]) + w[1:]
	}
	return " " + w
}
