// A small bilingual thesaurus of general vocabulary: one concept per line, English words, then
// `|`, then Chinese words. Every word of a line stands for the others, so a line serves as an
// English synonym set, a Chinese synonym set and a translation at once. Tools are often named
// in English while described in Chinese (or the other way round), and agents ask in either
// language: this is what lets "评估安全漏洞" reach `vulnerability_assessment`. It is general
// vocabulary of software tools and everyday tasks, not a list tuned to any query set.
export const GLOSSARY = `
analyze analysis analyse analyzer analytics | 分析 解析 剖析
manage management manager administer | 管理 管控 治理
create generate make build | 创建 生成 新建 建立 制作
update modify change edit adjust | 更新 修改 变更 编辑 调整 更改
delete remove erase | 删除 移除 清除
query lookup retrieve fetch get | 查询 检索 获取 查找 查看
search find discover locate | 搜索 查找 寻找 发现 搜寻
calculate compute calculation calculator | 计算 核算 测算
convert conversion converter transform | 转换 换算 转化 变换
translate translation translator | 翻译 译文
recommend recommendation suggest suggestion advise advice | 推荐 建议 推介
predict prediction forecast forecasting projection | 预测 预报 预估 预判
monitor monitoring watch | 监控 监测 监视 监听
track tracking tracker trace | 跟踪 追踪 追溯 记录
schedule scheduling scheduler timetable | 日程 时间表 排程 调度 安排
plan planning planner | 计划 规划 方案 策划
book booking reserve reservation | 预订 预定 预约 订购
cancel cancellation | 取消 撤销
send deliver dispatch | 发送 投递 派送
notify notification alert reminder | 通知 提醒 提示 警报 预警
optimize optimization optimizer improve improvement enhance | 优化 改进 改善 提升 提高
evaluate evaluation assess assessment appraise rating | 评估 评价 评测 评定 鉴定
compare comparison contrast | 比较 对比 比对
check verify verification validate validation inspect | 检查 验证 核实 校验 检验 核查
detect detection identify identification recognize recognition | 检测 识别 辨识 鉴别 探测
classify classification categorize category | 分类 归类 类别 分级
filter screen | 筛选 过滤 滤波
sort rank ranking order | 排序 排名 排列
summarize summary summarization digest | 总结 摘要 概要 汇总 概括
extract extraction | 提取 抽取 萃取
simulate simulation simulator emulate | 模拟 仿真 模拟器
design designer | 设计 设计师
configure configuration setting settings setup | 配置 设置 设定
install installation | 安装 部署
upload | 上传
download | 下载
share sharing | 分享 共享
report reporting | 报告 报表 汇报
backup | 备份
restore recovery recover | 恢复 还原
synchronize sync | 同步
import | 导入
export | 导出
encrypt encryption cipher | 加密
decrypt decryption | 解密
compress compression | 压缩
measure measurement | 测量 度量 测定
estimate estimation | 估算 估计
control controller regulate regulation | 控制 调控 调节
test testing | 测试 测验
register registration signup enroll enrollment | 注册 登记 报名
login signin authenticate authentication | 登录 认证 身份验证
authorize authorization permission | 授权 权限 许可
coordinate coordination | 协调 统筹
integrate integration | 集成 整合
automate automation automatic | 自动化 自动
visualize visualization chart graph | 可视化 图表
label tag annotate annotation | 标签 标注 标记
list | 列表 清单 列出
detail details detailed | 详细 详情 细节
information info | 信息 资讯 资料
guide guidance tutorial instruction | 指南 指导 教程 攻略
assistant helper assist help | 助手 助理 帮助 协助
tool utility | 工具
system platform | 系统 平台
service | 服务
process processing handle | 处理 流程 加工
workflow pipeline | 工作流 流水线
status state condition | 状态 状况 情况
history historical record | 历史 记录 档案
trend trends | 趋势 走势 动向
pattern | 模式 规律
statistic statistics stats | 统计 数据统计
data dataset | 数据 数据集
database | 数据库
file document documentation | 文件 文档 档案
image picture photo photograph | 图片 图像 照片 相片
video | 视频 录像
audio sound | 音频 声音 音效
voice speech | 语音 声音 讲话 演讲
text | 文本 文字 文案
word vocabulary | 单词 词汇 词语
sentence | 句子
language linguistic | 语言
content | 内容
message chat | 消息 信息 聊天
email mail | 邮件 电子邮件 邮箱
phone telephone mobile | 电话 手机 移动
address | 地址
location position place | 位置 地点 定位 场所
city urban | 城市 都市
country nation national | 国家 国内
region area zone regional | 区域 地区 地域 范围
map mapping | 地图 测绘
route path navigation navigate | 路线 路径 导航 线路
distance | 距离
coordinate latitude longitude | 坐标 纬度 经度
weather meteorological climate | 天气 气象 气候
temperature | 温度 气温
humidity moisture | 湿度 湿气
rain rainfall precipitation | 降雨 降水 雨量
wind | 风 风速
air atmosphere | 空气 大气
quality | 质量 品质
pollution pollutant | 污染 污染物
emission carbon footprint | 排放 碳排放 碳足迹
environment environmental ecological ecology | 环境 环保 生态
energy power electricity | 能源 能量 电力 能耗
solar | 太阳能 太阳
battery charge charging | 电池 充电 电量
efficiency efficient | 效率 能效
vehicle car automobile auto | 车辆 汽车 车
traffic | 交通 路况
parking | 停车
flight airline aviation airport | 航班 飞行 航空 机场
train railway rail | 火车 列车 铁路 高铁
ticket | 票 车票 门票 机票
hotel accommodation lodging | 酒店 住宿 旅馆 宾馆
restaurant dining | 餐厅 餐馆 饭店 餐饮
food meal dish cuisine | 食物 食品 餐食 菜品 菜肴 菜系 美食
recipe cooking cook | 食谱 菜谱 烹饪 烹调
menu | 菜单
ingredient | 食材 原料 配料
diet dietary nutrition nutrient | 饮食 营养 膳食
drink beverage | 饮料 饮品
coffee | 咖啡
tea | 茶 茶叶
wine | 葡萄酒 红酒
health healthy wellness | 健康 保健
medical medicine drug medication | 医疗 医学 药物 药品 医药
disease illness symptom | 疾病 病症 症状
doctor physician | 医生 医师
patient | 患者 病人
hospital clinic | 医院 诊所
vaccine vaccination immunization | 疫苗 接种 免疫
exercise workout fitness training | 运动 锻炼 健身 训练
sleep | 睡眠
emotion emotional mood feeling | 情绪 情感 心情 感受
stress anxiety | 压力 焦虑
mental psychological psychology | 心理 精神
child children kid son daughter | 孩子 儿童 子女 儿子 女儿 小孩
parent parenting family | 父母 家长 家庭 亲子
student | 学生
teacher | 老师 教师
course class lesson curriculum | 课程 课堂 课
education educational teaching | 教育 教学
learn learning study | 学习 研究 研读
exam examination quiz | 考试 测验
school university college | 学校 大学 学院
book novel | 书 书籍 图书 小说
literature poem poetry | 文学 诗歌 诗词
music song | 音乐 歌曲
movie film cinema | 电影 影片
game gaming | 游戏
sport sports athlete | 体育 运动员 赛事
art artwork artistic | 艺术 艺术品
museum exhibition gallery | 博物馆 展览 画廊
culture cultural heritage | 文化 遗产
festival holiday | 节日 节庆 假日
event activity | 活动 事件 赛事
travel trip tour tourism tourist | 旅行 旅游 出行 行程 游客
destination attraction sightseeing | 目的地 景点 景区
itinerary | 行程 日程安排
visa passport | 签证 护照
network internet online | 网络 互联网 在线 网上
website web page site | 网站 网页 站点
security secure safety safe | 安全 安保
threat attack | 威胁 攻击
vulnerability weakness | 漏洞 弱点
risk | 风险
firewall | 防火墙
privacy | 隐私
fraud scam | 欺诈 诈骗
password credential | 密码 凭证
code program programming | 代码 程序 编程
software application app | 软件 应用 应用程序
device equipment hardware | 设备 装置 硬件 器材
sensor | 传感器
robot robotic robotics | 机器人
drone | 无人机
artificial intelligence ai | 人工智能 智能
machine learning model | 机器学习 模型
algorithm | 算法
blockchain | 区块链
cryptocurrency crypto bitcoin | 加密货币 数字货币 比特币
cloud | 云 云端
server | 服务器
storage | 存储 储存
performance | 性能 表现 绩效
resource resources | 资源
capacity | 容量 产能
memory | 内存 记忆
stock share equity | 股票 股份 股权
price pricing | 价格 定价 报价
cost expense expenditure | 成本 费用 开支 花费
budget | 预算
market marketplace | 市场
finance financial | 金融 财务
investment invest investor portfolio | 投资 投资者 投资组合
bank banking | 银行
loan mortgage credit | 贷款 按揭 信贷 信用
tax taxation tariff duty | 税 税务 税费 关税
payment pay | 支付 付款 缴费
invoice bill billing | 发票 账单
account | 账户 账号
currency exchange rate | 货币 汇率 兑换
insurance | 保险
income revenue profit | 收入 营收 利润
salary wage | 工资 薪资 薪酬
order purchase buy | 订单 购买 采购 下单
product goods item | 产品 商品 物品
inventory stock warehouse | 库存 存货 仓库 仓储
supply supplier | 供应 供应商
logistics shipping shipment delivery | 物流 运输 配送 快递 发货
customer client consumer | 客户 顾客 消费者 用户
user member | 用户 会员 成员
sales sell selling | 销售 售卖
marketing promotion | 营销 市场营销 推广 促销
advertising advertisement ad campaign | 广告 投放 宣传
social media | 社交 媒体 社交媒体
review comment | 评论 点评 评价
feedback survey questionnaire | 反馈 调查 问卷
meeting conference | 会议 会面
calendar date | 日历 日期
time timing | 时间
duration period | 时长 期间 周期
deadline due | 截止 期限 截止日期
task todo job | 任务 待办 工作
priority prioritization | 优先级 优先
project | 项目
team group | 团队 小组 群组
employee staff personnel | 员工 职员 人员
recruit recruitment hiring hire candidate | 招聘 应聘 候选人
career job | 职业 工作 岗位
office workplace | 办公 办公室 职场
company business enterprise organization | 公司 企业 商业 组织 机构
contract agreement | 合同 协议 契约
legal law lawyer | 法律 律师 法务
regulation compliance policy rule | 法规 合规 政策 规定 规则
government public | 政府 公共
community | 社区
population demographic | 人口
water | 水 水资源
plant vegetation | 植物 植被
agriculture farming crop farm | 农业 种植 作物 农场
animal wildlife | 动物 野生动物
pet dog cat | 宠物 狗 猫
species | 物种
gene genetic genome dna | 基因 遗传 基因组
protein | 蛋白质
cell | 细胞
tissue | 组织
chemistry chemical | 化学 化学品
physics physical | 物理
biology biological | 生物
astronomy space planet star | 天文 太空 行星 星星 恒星
eclipse | 日食 月食
earthquake seismic | 地震
geology geological | 地质
ocean sea marine | 海洋 海
history | 历史
news | 新闻
article | 文章
story | 故事
character role | 角色 人物
fashion clothing clothes outfit | 时尚 服装 衣服 穿搭
home house household | 家 家居 房屋 住宅
real estate property | 房地产 房产 物业
room | 房间
furniture | 家具
light lighting lamp | 灯光 照明 灯
smart intelligent | 智能
maintenance maintain repair | 维护 保养 维修 修理
construction building | 建筑 施工 建设
city planning urban | 城市规划
safety emergency | 应急 紧急
disaster | 灾害 灾难
insurance claim | 理赔 索赔
gift | 礼物 礼品
wedding marriage | 婚礼 婚姻
party celebration | 聚会 派对 庆祝
volunteer charity donation | 志愿者 慈善 捐赠 捐款
vote election | 投票 选举
color colour | 颜色 色彩
font typography | 字体
style theme | 风格 主题 样式
layout | 布局 排版
size | 尺寸 大小
weight | 重量 体重
height | 高度 身高
speed velocity | 速度
volume | 体积 音量
length | 长度
area | 面积
number count quantity amount | 数量 数目 数字 金额
rate ratio percentage | 比率 比例 百分比 费率
score grade | 分数 评分 得分 成绩
level | 等级 级别 水平 程度
type kind | 类型 种类
name title | 名称 名字 标题
description | 描述 说明
identifier id | 编号 标识 识别码
start begin | 开始 起始 启动
end finish stop | 结束 终止 停止
source origin | 来源 源头
target goal objective | 目标
result outcome | 结果 成果
error bug issue problem | 错误 故障 问题
log | 日志
version | 版本
mobile phone | 手机
computer pc | 电脑 计算机
sound noise | 噪音 噪声
camera | 摄像头 相机
printer print | 打印 打印机
scan scanner | 扫描
keyword | 关键词 关键字
index | 索引 指数
unit | 单位
sequence | 序列
alignment align | 对齐 比对
growth | 增长 生长 成长
regeneration regenerate | 再生
communication communicate | 沟通 交流 通信 通讯
relationship | 关系
interview | 面试 采访
presentation | 演示 展示
negotiation negotiate | 谈判 协商
conflict dispute | 冲突 纠纷
motivation motivate | 动力 激励 动机
habit | 习惯
goal | 目标
skill ability | 技能 能力
knowledge | 知识
question answer | 问题 回答 答案
`;
